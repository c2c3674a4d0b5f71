"""How the engine's networks are made (``gammon train``): self-play TD(0) (:mod:`.td`), the
bootstrap (:mod:`.bootstrap`) and the supervised stage's labels, fit and prune
(:mod:`.supervised`). The engine never imports this package; it imports the engine."""
