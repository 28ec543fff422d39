"""pytorch/examples' word_language_model, condensed: an LSTM or a Transformer language model
(the example's RNNModel and TransformerModel, a subclass of nn.Transformer), trained by the
example's loop (truncated BPTT with repackaged hidden states, clip_grad_norm_, the manual update
``p.data.add_(p.grad, alpha=-lr)``), saved whole with ``torch.save(model, f)`` and loaded back
as the example loads it: inside ``torch.serialization.safe_globals([...])`` naming PyTorch's
class paths (``torch.nn.modules.linear.NonDynamicallyQuantizableLinear`` among them), then
``model.rnn.flatten_parameters()`` for the recurrent model.

``python word_language_model.py --model LSTM --data t.txt --init w.pt --out r.pt`` (PyTorch;
it writes its initial weights to w.pt), then the same line after ``python -m dagrad.torch.run``
(dagrad, starting from those weights).
"""
import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return F.log_softmax(decoded.view(-1, self.ntoken), dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.0):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers, dropout=dropout)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                self.src_mask = self._generate_square_subsequent_mask(len(src)).to(src.device)
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        return F.log_softmax(self.decoder(output), dim=-1)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="LSTM")
    parser.add_argument("--data", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bptt", type=int, default=5)
    parser.add_argument("--lr", type=float, default=2.0)
    args = parser.parse_args()
    torch.manual_seed(1111)
    words = open(args.data).read().split()
    vocab = sorted(set(words))
    ids = torch.tensor([vocab.index(w) for w in words], dtype=torch.long)
    train_data = batchify(ids, 4)
    ntokens = len(vocab)
    if args.model == 'Transformer':
        model = TransformerModel(ntokens, 8, 2, 16, 1)
    else:
        model = RNNModel(args.model, ntokens, 8, 8, 2)
    if os.path.exists(args.init):       # the second framework starts from the first's weights
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    criterion = nn.NLLLoss()

    def evaluate():
        model.eval()
        total = 0.0
        hidden = None if args.model == 'Transformer' else model.init_hidden(4)
        with torch.no_grad():
            for i in range(0, train_data.size(0) - 1, args.bptt):
                seq_len = min(args.bptt, len(train_data) - 1 - i)
                data, targets = train_data[i:i + seq_len], train_data[i + 1:i + 1 + seq_len].view(-1)
                if args.model == 'Transformer':
                    output = model(data).view(-1, ntokens)
                else:
                    output, hidden = model(data, hidden)
                total += len(data) * criterion(output, targets).item()
        return total / (len(train_data) - 1)

    losses = []
    model.train()
    hidden = None if args.model == 'Transformer' else model.init_hidden(4)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        seq_len = min(args.bptt, len(train_data) - 1 - i)
        data, targets = train_data[i:i + seq_len], train_data[i + 1:i + 1 + seq_len].view(-1)
        model.zero_grad()
        if args.model == 'Transformer':
            output = model(data).view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-args.lr)
        losses.append(loss.item())
    print('| end of training | loss {:5.2f} | ppl {:8.2f}'.format(losses[-1], math.exp(losses[-1])))

    with open("model.pt", 'wb') as f:
        torch.save(model, f)
    with open("model.pt", 'rb') as f:
        if args.model == 'Transformer':
            safe_globals = [
                PositionalEncoding,
                TransformerModel,
                torch.nn.functional.relu,
                torch.nn.modules.activation.MultiheadAttention,
                torch.nn.modules.container.ModuleList,
                torch.nn.modules.dropout.Dropout,
                torch.nn.modules.linear.Linear,
                torch.nn.modules.linear.NonDynamicallyQuantizableLinear,
                torch.nn.modules.normalization.LayerNorm,
                torch.nn.modules.sparse.Embedding,
                torch.nn.modules.transformer.TransformerEncoder,
                torch.nn.modules.transformer.TransformerEncoderLayer,
            ]
        else:
            safe_globals = [
                RNNModel,
                torch.nn.modules.dropout.Dropout,
                torch.nn.modules.linear.Linear,
                torch.nn.modules.rnn.GRU,
                torch.nn.modules.rnn.LSTM,
                torch.nn.modules.rnn.RNN,
                torch.nn.modules.sparse.Embedding,
            ]
        with torch.serialization.safe_globals(safe_globals):
            model = torch.load(f)
        if args.model in ['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU']:
            model.rnn.flatten_parameters()
    test_loss = evaluate()
    print('| End of training | test loss {:5.2f} | test ppl {:8.2f}'.format(
        test_loss, math.exp(test_loss)))
    torch.save({"losses": torch.tensor(losses), "test_loss": test_loss,
                "model": model.state_dict()}, args.out)


if __name__ == "__main__":
    main()
