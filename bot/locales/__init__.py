"""Message catalogs (JSON), a package so that installs ship them as package data."""
