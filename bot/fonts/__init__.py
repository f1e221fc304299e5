"""The bundled fonts, shipped as package data; see README.md and OFL.txt."""
