"""Jinja templates of the shipped games, installed as package data (adjudicator.templates)."""
