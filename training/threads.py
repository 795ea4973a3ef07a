"""Thread settings of a training process."""

from __future__ import annotations

import torch


def configure(torch_threads: int) -> None:
    torch.set_num_threads(torch_threads)
