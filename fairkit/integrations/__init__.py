"""Bridges to other tools (imported on demand; each names the package it needs)."""
