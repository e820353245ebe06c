"""The settings as an ``Annotated`` dependency; kept light, since every route imports it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from groundwork.settings import Settings


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(_settings)]
