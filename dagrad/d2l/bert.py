"""BERT (the book's chapter 15): the input representation of one or two sentences, the
encoder (token + segment + learned position embeddings, then Transformer encoder blocks), the
masked-language-model and next-sentence heads, and their pretraining loss."""
from dagrad import torch
from dagrad.torch import nn

from .attention import TransformerEncoderBlock


def get_tokens_and_segments(tokens_a, tokens_b=None):
    """(["<cls>", *a, "<sep>", *b, "<sep>"], segment ids: 0 for "<cls>", a and its "<sep>",
    1 for b and its "<sep>"); with one sentence, (["<cls>", *a, "<sep>"], zeros)."""
    tokens = ["<cls>"] + tokens_a + ["<sep>"]
    segments = [0] * (len(tokens_a) + 2)
    if tokens_b is not None:
        tokens += tokens_b + ["<sep>"]
        segments += [1] * (len(tokens_b) + 1)
    return tokens, segments


class BERTEncoder(nn.Module):
    """X = token_embedding(tokens) + segment_embedding(segments) + pos_embedding[:, :T], then
    ``num_blks`` Transformer encoder blocks (with biases) masked by ``valid_lens``.
    tokens, segments (batch, T) int -> (batch, T, num_hiddens). The position embedding is a
    parameter (1, max_len, num_hiddens) drawn from N(0, 1), learned as BERT's is."""

    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens, num_heads, num_blks, dropout,
                 max_len=1000, **kwargs):
        super().__init__(**kwargs)
        self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
        self.segment_embedding = nn.Embedding(2, num_hiddens)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module(f"{i}", TransformerEncoderBlock(
                num_hiddens, ffn_num_hiddens, num_heads, dropout, True))
        self.pos_embedding = nn.Parameter(torch.randn(1, max_len, num_hiddens))

    def forward(self, tokens, segments, valid_lens):
        X = self.token_embedding(tokens) + self.segment_embedding(segments)
        X = X + self.pos_embedding[:, :X.shape[1], :]
        for blk in self.blks:
            X = blk(X, valid_lens)
        return X


class MaskLM(nn.Module):
    """The masked-language-model head: the encodings at ``pred_positions`` (batch, P) of X
    (batch, T, num_hiddens) go through Linear(num_hiddens) -> ReLU -> LayerNorm ->
    Linear(vocab_size): scores (batch, P, vocab_size) for the hidden tokens."""

    def __init__(self, vocab_size, num_hiddens, **kwargs):
        super().__init__(**kwargs)
        self.mlp = nn.Sequential(nn.LazyLinear(num_hiddens), nn.ReLU(),
                                 nn.LayerNorm(num_hiddens), nn.LazyLinear(vocab_size))

    def forward(self, X, pred_positions):
        num_pred_positions = pred_positions.shape[1]
        pred_positions = pred_positions.reshape(-1)
        batch_size = X.shape[0]
        # batch_size 2 and 3 positions each: batch_idx = [0, 0, 0, 1, 1, 1]
        batch_idx = torch.repeat_interleave(torch.arange(0, batch_size), num_pred_positions)
        masked_X = X[batch_idx, pred_positions]
        masked_X = masked_X.reshape((batch_size, num_pred_positions, -1))
        return self.mlp(masked_X)


class NextSentencePred(nn.Module):
    """The next-sentence head: Linear(2) of X (batch, num_hiddens), the scores of "B follows
    A" (1) and "B is a random sentence" (0)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.output = nn.LazyLinear(2)

    def forward(self, X):
        return self.output(X)


class BERTModel(nn.Module):
    """The encoder and both heads: returns (encodings (batch, T, num_hiddens), MLM scores
    (batch, P, vocab_size) or None without ``pred_positions``, NSP scores (batch, 2) from
    tanh(Linear(encoding of "<cls>")))."""

    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens, num_heads, num_blks, dropout,
                 max_len=1000):
        super().__init__()
        self.encoder = BERTEncoder(vocab_size, num_hiddens, ffn_num_hiddens, num_heads,
                                   num_blks, dropout, max_len=max_len)
        self.hidden = nn.Sequential(nn.LazyLinear(num_hiddens), nn.Tanh())
        self.mlm = MaskLM(vocab_size, num_hiddens)
        self.nsp = NextSentencePred()

    def forward(self, tokens, segments, valid_lens=None, pred_positions=None):
        encoded_X = self.encoder(tokens, segments, valid_lens)
        mlm_Y_hat = (self.mlm(encoded_X, pred_positions) if pred_positions is not None
                     else None)
        nsp_Y_hat = self.nsp(self.hidden(encoded_X[:, 0, :]))     # position 0 is "<cls>"
        return encoded_X, mlm_Y_hat, nsp_Y_hat


def _get_batch_loss_bert(net, loss, vocab_size, tokens_X, segments_X, valid_lens_x,
                         pred_positions_X, mlm_weights_X, mlm_Y, nsp_y):
    """The pretraining loss of one batch, (mlm_l, nsp_l, mlm_l + nsp_l), with the book's
    section's ``loss = nn.CrossEntropyLoss()``: mlm_l = ℓ_MLM · Σw / (Σw + 1e-8), ℓ_MLM the
    mean cross-entropy over the (batch · P) prediction slots and w their weights (0 on padded
    slots, so a batch without predictions gives 0), and nsp_l the cross-entropy of the NSP
    scores against ``nsp_y`` (1: B follows A)."""
    _, mlm_Y_hat, nsp_Y_hat = net(tokens_X, segments_X, valid_lens_x.reshape(-1),
                                  pred_positions_X)
    mlm_l = (loss(mlm_Y_hat.reshape(-1, vocab_size), mlm_Y.reshape(-1))
             * mlm_weights_X.reshape(-1, 1))
    mlm_l = mlm_l.sum() / (mlm_weights_X.sum() + 1e-8)
    nsp_l = loss(nsp_Y_hat, nsp_y)
    return mlm_l, nsp_l, mlm_l + nsp_l
