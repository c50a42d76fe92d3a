"""Storage: the only code that imports SQLModel/SQLAlchemy or writes under the references
folder. Functions take an engine or a session; they never import a front end."""
