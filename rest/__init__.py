"""Tabletop's REST facade: a Flask app derived from the gRPC contract (see ``rest.app``)."""
