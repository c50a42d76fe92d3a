"""The pure core: the reference file format, matching, calculators, the catalog snapshot and
redaction. No FastAPI, Starlette, SQLAlchemy, SQLModel or Jinja2 here, and no writes:
everything is a plain function of its inputs (reading a folder of reference files included)."""
