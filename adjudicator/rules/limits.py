"""The sizes a player's signed file may have: bigger ones are refused unread."""

from __future__ import annotations

MAX_ORDER_BYTES = 64 * 1024
"""An order file or a notice, as signed."""
MAX_SIGNATURE_BYTES = 8 * 1024
"""Its armored signature (an Ed25519 one is under 400 bytes)."""
