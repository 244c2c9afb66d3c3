"""Callbacks for training loops: a window per epoch, logged beside the loss, and the run recorded once at the end.

    from examlops.integrations import HuggingFaceCallback      # imports transformers, on first use
    trainer = Trainer(model, args, callbacks=[HuggingFaceCallback("llama-ft", run_id="job-42")])

    from examlops.integrations import LightningCallback        # imports lightning, on first use
    trainer = lightning.Trainer(callbacks=[LightningCallback("llama-ft")])

Each epoch is a `Monitor` window; its figures are logged as `exa/energy_kwh`, `exa/gpu_j`, `exa/co2e_g`,
`exa/cost_usd` and `exa/duration_s` (Hugging Face: in `state.log_history`, which the Trainer's loggers read;
Lightning: through `pl_module.log_dict`). Each node's local process zero records its node's run; every rank
reads the node's one measurer. `callback.windows` keeps every epoch's `Window`, `callback.report` the run's report.

Neither framework is imported by `import examlops` or by this module: a class is made when it is first named.
"""

from __future__ import annotations

import sys

from . import ExaError
from .monitor import Monitor

__all__ = ["HuggingFaceCallback", "LightningCallback"]


def _metrics(w) -> dict:
    figures = {"exa/energy_kwh": w.energy_kwh, "exa/gpu_j": w.gpu_total_j, "exa/duration_s": w.duration_s}
    if w.co2e_g is not None:
        figures["exa/co2e_g"] = w.co2e_g
    if w.cost_usd is not None:
        figures["exa/cost_usd"] = w.cost_usd
    return figures


class _Epochs:
    """What both callbacks do: a monitor from the start of training, a window an epoch, the record at the end."""

    def __init__(self, model: str | None = None, **monitor_options):
        self.model = model
        self.options = monitor_options
        self.monitor: Monitor | None = None
        self.windows: list = []
        self.report: dict | None = None
        self._epoch: str | None = None

    def _begin(self, rank: int, local_rank: int) -> None:
        # Each node's local rank 0 records (its node's part), when it closes. Training starts whatever the
        # measurer does: one that cannot be started is a warning.
        try:
            self.monitor = Monitor(self.model, rank=rank, local_rank=local_rank, **self.options)
        except (ExaError, OSError) as e:
            print(f"examlops: training is not measured: {e}", file=sys.stderr)

    # Training goes on whatever the measurer does: a failure (the node's rank 0 ended the run first, say) is a
    # warning, and the rest of the training is not measured.
    def _failed(self, e: Exception) -> None:
        print(f"examlops: {e}; the rest of the training is not measured", file=sys.stderr)
        monitor, self.monitor = self.monitor, None
        if monitor is not None:
            try:
                monitor.close()
            except (ExaError, OSError):
                pass

    def _epoch_begin(self, epoch: int) -> None:
        if self.monitor is not None:
            self._epoch = f"epoch-{epoch}"
            try:
                self.monitor.begin_window(self._epoch)
            except (ExaError, OSError) as e:
                self._failed(e)

    def _epoch_end(self):
        if self.monitor is None or self._epoch is None:
            return None
        try:
            w = self.monitor.end_window(self._epoch)
        except (ExaError, OSError) as e:
            self._failed(e)
            return None
        self._epoch = None
        self.windows.append(w)
        return w

    def _end(self) -> None:
        if self.monitor is not None:
            try:
                self.report = self.monitor.close()
            except (ExaError, OSError) as e:
                print(f"examlops: the run could not be ended: {e}", file=sys.stderr)
            self.monitor = None


def _huggingface():
    from transformers import TrainerCallback

    class HuggingFaceCallback(_Epochs, TrainerCallback):
        """A window per epoch of a Hugging Face `Trainer`, logged in `state.log_history`; the run recorded by
        each node's local process zero at the end of training."""

        def on_train_begin(self, args, state, control, **kwargs):
            self._begin(0 if state.is_world_process_zero else 1, 0 if state.is_local_process_zero else 1)

        def on_epoch_begin(self, args, state, control, **kwargs):
            self._epoch_begin(len(self.windows))

        def on_epoch_end(self, args, state, control, **kwargs):
            w = self._epoch_end()
            if w is not None:
                state.log_history.append({"epoch": state.epoch, "step": state.global_step, **_metrics(w)})

        def on_train_end(self, args, state, control, **kwargs):
            self._end()

    return HuggingFaceCallback


def _lightning():
    try:
        from lightning.pytorch import Callback
    except ImportError:
        from pytorch_lightning import Callback

    class LightningCallback(_Epochs, Callback):
        """A window per training epoch of a Lightning `Trainer`, logged with `pl_module.log_dict`; the run
        recorded by each node's local rank zero at the end of training."""

        def on_train_start(self, trainer, pl_module):
            self._begin(trainer.global_rank, trainer.local_rank)

        def on_train_epoch_start(self, trainer, pl_module):
            self._epoch_begin(trainer.current_epoch)

        def on_train_epoch_end(self, trainer, pl_module):
            w = self._epoch_end()
            if w is not None:
                pl_module.log_dict(_metrics(w))

        def on_train_end(self, trainer, pl_module):
            self._end()

    return LightningCallback


_MADE: dict = {}


def __getattr__(name: str):
    makers = {"HuggingFaceCallback": _huggingface, "LightningCallback": _lightning}
    if name not in makers:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _MADE:
        _MADE[name] = makers[name]()
    return _MADE[name]
