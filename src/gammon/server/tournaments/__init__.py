"""Tournaments: knockout, Swiss and arena (pairing.py: the pure rules each round applies)."""
