"""The gate every signed file passes, order or notice: is its player still in the game, and
whose key made its signature.
"""

from __future__ import annotations

from adjudicator.engine.open_game import OpenGame
from adjudicator.rules.contract import Msg, Reason, msg
from adjudicator.signing import sshsig


def out_of_game(handle: OpenGame, player: str) -> Msg | None:
    """Why ``player`` may send nothing more, order or notice (they resigned, or conceded), or
    None."""
    if player in handle.resigned():
        return msg("player-resigned", player=player, game=handle.meta["id"])
    if player in handle.votes().conceded:
        return msg("player-conceded", player=player, game=handle.meta["id"])
    return None


NO_SIGNATURE = Reason(msg("no-signature"))


def signature_reason(
    handle: OpenGame, player: str, error: sshsig.SignatureError, signature: bytes
) -> Msg:
    """The signature's reason, naming the player whose key made it when it is another's."""
    try:
        made_with = sshsig.parse_armored(signature).public_key_blob
    except sshsig.SignatureError:
        return msg("bad-signature", why=error.reason)
    from adjudicator.signing import keys  # cryptography: only for a signature that failed

    for former in reversed(handle.former_keys(player)):
        if keys.parse_public_line(str(former["key"])) == made_with:
            return msg(
                "signed-with-former-key", player=player, turn=former["turn"], at=former["at"]
            )
    for other in handle.players:
        if other != player and keys.parse_public_line(handle.key_of(other)) == made_with:
            return msg("signed-with-other-key", other=other, player=player)
    return msg("bad-signature", why=error.reason)
