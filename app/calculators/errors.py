"""The two ways a calculator call fails: an unknown calculator, or an input it cannot use."""

from __future__ import annotations


class CalculatorInputError(ValueError):
    """An input value the calculator cannot use; `field` is the input's name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class UnknownCalculator(LookupError):
    """No calculator is registered under `name`."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown calculator: {name!r}")
        self.name = name
