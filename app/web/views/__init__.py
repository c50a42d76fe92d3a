"""What pages show that the JSON twin does not need: the paste form and the calculator
panel, shaped for templates (no FastAPI imports; plain functions of their inputs)."""
