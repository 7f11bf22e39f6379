"""Small PyTorch models for tests/test-torch-layers.sh (calibrate/torch-layers.py):
a GPT-like decoder whose LM head shares the token embedding's weight, with
a learned positional table held by the model itself (an nn.Parameter of no
submodule), and a small CNN (no torchvision)."""
import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        w = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        w = w.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        return self.c_proj((w @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.proj(self.act(self.fc(self.ln_2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab=512, seq=64, d=128, layers=2, heads=4):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(1, seq, d))
        self.wte = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight          # tied, as GPT-2's

    def forward(self, idx):
        x = self.wte(idx) + self.pos[:, : idx.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def gpt():
    return TinyGPT()


def gpt2():
    """GPT-2's 124M at its sizes (sim/models/gpt2.model): 1,024 positions,
    768 wide, 12 blocks of 12 heads, vocabulary 50,257, the head tied."""
    return TinyGPT(vocab=50257, seq=1024, d=768, layers=12, heads=12)


def cnn():
    def stage(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
    return nn.Sequential(*stage(3, 16), *stage(16, 32), nn.MaxPool2d(2), *stage(32, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
