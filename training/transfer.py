"""A player checkpoint re-seated for another table size:
``python -m training.transfer SOURCE.zip --players 3 --out START.zip``.

The observation planes have one slot of three planes (wizard, troll, dwarf) per player, the
observer first and the others in turn order; a 2-player network only ever saw the first
two slots filled. The result is the same network with the stem's weights for every opponent
slot copied from the source's first opponent slot, so that each opponent's pieces are read
as the source read its one opponent, and the table size in its metadata changed: a start for
``training.train``'s ``init_from`` at the new table size (self-play then learns what differs).
The source's value head is kept as it is. Files are read and written as player files (JSON
and safetensors, nothing unpickled).

    python -m training.transfer checkpoints/splut_2p.zip --players 3 --out runs/start_3p.zip
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from splut_env.encoding import SLOT_PLANES
from splut_env.players.checkpoint import CheckpointError, load_checkpoint, save_player
from splut_env.rules.board import player_count
from training.average import kind_of, training_facts


def transfer(source: str | Path, num_players: int, out: str | Path) -> Path:
    """Write ``source``'s network as a player for ``num_players`` players to ``out``."""
    num_players = player_count(num_players)
    checkpoint = load_checkpoint(source)
    kind = kind_of(checkpoint)
    seen = kind["num_players"]
    stem = checkpoint.policy.features_extractor.stem[0]
    with torch.no_grad():
        opponent = stem.weight[:, SLOT_PLANES : 2 * SLOT_PLANES].clone()
        for slot in range(seen, num_players):
            stem.weight[:, slot * SLOT_PLANES : (slot + 1) * SLOT_PLANES] = opponent
    facts = training_facts(checkpoint)
    facts["transferred_from"] = {"path": str(checkpoint.path), "num_players": seen}
    return save_player(
        checkpoint.policy, out, kind["network"], num_players, kind["max_turns"], **facts
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.transfer", description=__doc__)
    parser.add_argument("source", type=Path, help="player checkpoint to start from")
    parser.add_argument("--players", type=int, required=True, help="table size of the result")
    parser.add_argument("--out", type=Path, required=True, help="player checkpoint to write")
    args = parser.parse_args(argv)
    try:
        written = transfer(args.source, args.players, args.out)
    except (CheckpointError, OSError, ValueError) as err:
        parser.exit(2, f"error: {err}\n")
    print(f"{args.source} re-seated for {args.players} players: {written}")


if __name__ == "__main__":
    main()
