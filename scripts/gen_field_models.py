#!/usr/bin/python3
"""Write models shaped like those web apps ship beyond the image zoo (tests/node/field.test.mjs,
bench/field.mjs): recurrent layers, control flow, transposed and video convs.

Usage:
    /usr/bin/python3 scripts/gen_field_models.py [--out build/models/field] [--only NAME ...]
                                                 [--force]

Files written into --out (relative paths are resolved against the repository root), all torch
exports with seeded random weights:

    vad.onnx          a streaming voice-activity detector in the shape of Silero VAD: an If on
                      the sample rate ("sr", int64 scalar: 16000 or 8000) chooses between two
                      branches of Conv1d -> LSTM(32) -> Linear -> Sigmoid; "x" [1,T] audio,
                      "h"/"c" [1,1,32] state in -> "prob" [1,1], "hn"/"cn" out (opset 16)
    lstm2.onnx        2-layer LSTM 64 -> 128, "x" [T,1,64], "h0"/"c0" [2,1,128] ->
                      "y" [T,1,128], "hn"/"cn" (opset 14)
    gru_bi.onnx       bidirectional GRU 40 -> 48 over "x" [1,T,40] (batch first) -> "y", "hn"
    decoder.onnx      a UNet-style decoder: three stride-2 ConvTranspose (k4 p1) with ReLU
                      from "z" [N,64,16,16] to "mask" [N,1,128,128] (opset 13)
    recurrence.onnx   a scripted loop: h = tanh(h W + x[t]) for every step of "x" [T,16],
                      exported as an ONNX Loop whose trip count is T -> "h" [16] (opset 16)
    video.onnx        two Conv3d (3x3x3) + ReLU + global pooling on "clip" [N,3,8,32,32]

Every model is seeded, so re-exports are identical. Existing files are kept unless --force is
given; each file is written through a temporary name and checked with onnx.checker.
"""

import sys

from gen_shape_models import _export, _torch, write_models

DEFAULT_OUT = "build/models/field"


def build_vad():
    torch = _torch()
    torch.manual_seed(0)
    nn = torch.nn

    class Branch(nn.Module):
        def __init__(self, stride):
            super().__init__()
            self.encoder = nn.Conv1d(1, 16, 8, stride=stride)
            self.lstm = nn.LSTM(16, 32, batch_first=True)
            self.head = nn.Linear(32, 1)

        def forward(self, x, h, c):
            features = torch.relu(self.encoder(x.unsqueeze(1)))
            y, (hn, cn) = self.lstm(features.transpose(1, 2), (h, c))
            return torch.sigmoid(self.head(y[:, -1])), hn, cn

    class Vad(nn.Module):
        def __init__(self):
            super().__init__()
            self.at16k = Branch(4)
            self.at8k = Branch(2)

        def forward(self, x, h, c, sr):
            if bool(sr == 16000):
                prob, hn, cn = self.at16k(x, h, c)
            else:
                prob, hn, cn = self.at8k(x, h, c)
            return prob, hn, cn

    module = torch.jit.script(Vad().eval())
    example = (torch.randn(1, 512), torch.zeros(1, 1, 32), torch.zeros(1, 1, 32),
               torch.tensor(16000))
    return _export(module, example, 16, ["x", "h", "c", "sr"], ["prob", "hn", "cn"],
                   {"x": {1: "T"}})


def build_lstm2():
    torch = _torch()
    torch.manual_seed(0)
    module = torch.nn.LSTM(64, 128, num_layers=2).eval()
    example = (torch.randn(100, 1, 64), (torch.zeros(2, 1, 128), torch.zeros(2, 1, 128)))
    return _export(module, example, 14, ["x", "h0", "c0"], ["y", "hn", "cn"], {"x": {0: "T"}})


def build_gru_bi():
    torch = _torch()
    torch.manual_seed(0)
    module = torch.nn.GRU(40, 48, batch_first=True, bidirectional=True).eval()
    return _export(module, (torch.randn(1, 30, 40),), 14, ["x"], ["y", "hn"], {"x": {1: "T"}})


def build_decoder():
    torch = _torch()
    torch.manual_seed(0)
    nn = torch.nn
    module = nn.Sequential(
        nn.ConvTranspose2d(64, 32, 4, stride=2, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 1, 3, padding=1), nn.Sigmoid()).eval()
    return _export(module, (torch.randn(1, 64, 16, 16),), 13, ["z"], ["mask"], {"z": {0: "N"}})


def build_recurrence():
    torch = _torch()
    torch.manual_seed(0)

    class Recurrence(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(16, 16) * 0.3)

        def forward(self, x):
            h = torch.zeros(16)
            for t in range(x.size(0)):
                h = torch.tanh(h @ self.w + x[t])
            return h

    module = torch.jit.script(Recurrence().eval())
    return _export(module, (torch.randn(12, 16),), 16, ["x"], ["h"], {"x": {0: "T"}})


def build_video():
    torch = _torch()
    torch.manual_seed(0)
    nn = torch.nn
    module = nn.Sequential(
        nn.Conv3d(3, 16, 3, padding=1), nn.ReLU(),
        nn.Conv3d(16, 32, 3, stride=(1, 2, 2), padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool3d(1), nn.Flatten()).eval()
    return _export(module, (torch.randn(1, 3, 8, 32, 32),), 13, ["clip"], ["features"],
                   {"clip": {0: "N"}})


MODELS = {
    "vad": build_vad,
    "lstm2": build_lstm2,
    "gru_bi": build_gru_bi,
    "decoder": build_decoder,
    "recurrence": build_recurrence,
    "video": build_video,
}


def main(argv=None):
    return write_models(argv, MODELS, DEFAULT_OUT, __doc__)


if __name__ == "__main__":
    sys.exit(main())
