#!/usr/bin/python3
"""Write a small BERT-style sentence encoder as a transformers.js model folder, for the library
test that runs transformers.js through webnx/ort (tests/browser/libraries.test.mjs).

Usage:
    /usr/bin/python3 scripts/gen_text_model.py [--out build/models/text] [--force]

Written into --out/small-bert/ (relative paths resolve against the repository root):

    config.json             model_type "bert" and the sizes below
    tokenizer.json          a WordPiece tokenizer (lowercasing BERT normalizer, BERT
                            pre-tokenizer, [CLS] A [SEP]) over a vocabulary of the test's words
    tokenizer_config.json
    onnx/model.onnx         the encoder, torch-exported with seeded random weights (opset 14):
                            input_ids, attention_mask, token_type_ids [batch, sequence] int64 ->
                            last_hidden_state [batch, sequence, 128]; 4 layers, 4 heads, FFN 512,
                            GELU (a quarter of MiniLM-L6's width: a call is long enough to
                            time the runtimes, not only the library's own JS)

The model is seeded, so re-exports are identical; an existing folder is kept unless --force.
"""

import argparse
import json
import math
import os
import sys

import torch
from torch import nn

HIDDEN, HEADS, LAYERS, FFN, POSITIONS = 128, 4, 4, 512, 128
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("the a an of and to in is it on for with that this webnx runs models fast small browser "
         "page text image sound voice speech word words sentence sentences hello world runtime "
         "onnx web assembly wasm quick brown fox jumps over lazy dog cat sat mat").split()
PIECES = ["##s", "##ing", "##ed", "##er", "##ly", "##x", "##n", "##e"] + list("abcdefghijklmnopqrstuvwxyz")
VOCAB = SPECIAL + WORDS + PIECES + [".", ",", "!", "?"]


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(HIDDEN, HIDDEN) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(HIDDEN, eps=1e-12), nn.LayerNorm(HIDDEN, eps=1e-12)
        self.f1, self.f2 = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)

    def forward(self, x, bias):
        b, t, _ = x.shape
        d = HIDDEN // HEADS

        def heads(v):
            return v.view(b, t, HEADS, d).transpose(1, 2)

        scores = heads(self.q(x)) @ heads(self.k(x)).transpose(-1, -2) / math.sqrt(d) + bias
        context = (scores.softmax(-1) @ heads(self.v(x))).transpose(1, 2).reshape(b, t, HIDDEN)
        x = self.ln1(x + self.o(context))
        return self.ln2(x + self.f2(nn.functional.gelu(self.f1(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.words = nn.Embedding(len(VOCAB), HIDDEN)
        self.positions = nn.Embedding(POSITIONS, HIDDEN)
        self.types = nn.Embedding(2, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))

    def forward(self, input_ids, attention_mask, token_type_ids):
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.ln(self.words(input_ids) + self.positions(positions) + self.types(token_type_ids))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x


def tokenizer_json():
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True} for i, t in enumerate(SPECIAL)]
    token = lambda name: {"id": name, "ids": [VOCAB.index(name)], "tokens": [name]}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": token("[CLS]"), "[SEP]": token("[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(VOCAB)}},
    }


def write(folder):
    torch.manual_seed(27)
    model = Encoder().eval()
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    ids = torch.tensor([[2, 5, 6, 3]])
    path = os.path.join(folder, "onnx", "model.onnx")
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), path + ".tmp",
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state"], opset_version=14,
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                    "last_hidden_state": axes})
    import onnx
    onnx.checker.check_model(onnx.load(path + ".tmp"))
    os.replace(path + ".tmp", path)
    config = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": HIDDEN,
              "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": FFN,
              "vocab_size": len(VOCAB), "max_position_embeddings": POSITIONS, "type_vocab_size": 2}
    files = {"config.json": config, "tokenizer.json": tokenizer_json(),
             "tokenizer_config.json": {"tokenizer_class": "BertTokenizer", "do_lower_case": True,
                                       "model_max_length": POSITIONS, "cls_token": "[CLS]",
                                       "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
                                       "mask_token": "[MASK]"}}
    for name, content in files.items():
        with open(os.path.join(folder, name), "w") as f:
            json.dump(content, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="build/models/text")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = os.path.join(args.out if os.path.isabs(args.out) else os.path.join(root, args.out), "small-bert")
    if os.path.exists(os.path.join(folder, "onnx", "model.onnx")) and not args.force:
        return 0
    write(folder)
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
