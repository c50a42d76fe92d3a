"""FastAPI dependencies shared by pages and API routes.

They only read `app.state`, so they are `async def`: no thread-pool hop per request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..config import Settings
from ..domain.catalog import Catalog
from ..services.library import Library


async def get_library(request: Request) -> Library:
    """The library the app factory opened at start-up."""
    library: Library = request.app.state.library
    return library


def catalog_of(request: Request) -> Catalog:
    """The current catalog snapshot; one request sees one snapshot throughout."""
    library: Library = request.app.state.library
    return library.catalog


async def get_catalog(request: Request) -> Catalog:
    """Dependency form of `catalog_of`."""
    return catalog_of(request)


async def get_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    library: Library = request.app.state.library
    return library.settings


LibraryDep = Annotated[Library, Depends(get_library)]
CatalogDep = Annotated[Catalog, Depends(get_catalog)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
