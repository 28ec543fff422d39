"""pytorch/examples' gcn, condensed: a two-layer graph convolutional network on a citation graph
in Cora's file format (``cora.content``: id, 0/1 features, label; ``cora.cites``: pairs of ids),
with the example's ``load_cora`` as written: a sparse adjacency matrix of int64, ``torch.eye(V)
+ adj_mat`` (dense plus sparse), the renormalisation ``D^-1/2 (A + I) D^-1/2`` through sparse
diagonal matrices, ``torch.spmm`` in the layer, Adam with weight decay, masked NLL loss.

``python gcn.py --data folder --init w.pt --out r.pt`` (PyTorch; it writes its initial weights
to w.pt), then the same line after ``python -m dagrad.torch.run`` (dagrad, from those weights).
"""
import argparse
import os

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.optim import Adam


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)
        output = torch.spmm(adj_mat, support)
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)
        x = self.dropout(x)
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def load_cora(path='./cora', device='cpu'):
    content_path = os.path.join(path, 'cora.content')
    cites_path = os.path.join(path, 'cora.cites')
    content_tensor = np.genfromtxt(content_path, dtype=np.dtype(str))
    cites_tensor = np.genfromtxt(cites_path, dtype=np.int32)
    features = torch.FloatTensor(content_tensor[:, 1:-1].astype(np.int32))
    scale_vector = torch.sum(features, dim=1)
    scale_vector = 1 / scale_vector
    scale_vector[scale_vector == float('inf')] = 0
    scale_vector = torch.diag(scale_vector).to_sparse()
    features = scale_vector @ features
    classes, labels = np.unique(content_tensor[:, -1], return_inverse=True)
    labels = torch.LongTensor(labels)
    idx = content_tensor[:, 0].astype(np.int32)
    idx_map = {id: pos for pos, id in enumerate(idx)}
    edges = np.array(
        list(map(lambda edge: [idx_map[edge[0]], idx_map[edge[1]]], cites_tensor)),
        dtype=np.int32)
    V = len(idx)
    E = edges.shape[0]
    adj_mat = torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64)
    adj_mat = torch.eye(V) + adj_mat
    degree_mat = torch.sum(adj_mat, dim=1)
    degree_mat = torch.sqrt(1 / degree_mat)
    degree_mat[degree_mat == float('inf')] = 0
    degree_mat = torch.diag(degree_mat).to_sparse()
    adj_mat = degree_mat @ adj_mat @ degree_mat
    return features.to_sparse().to(device), labels.to(device), adj_mat.to_sparse().to(device)


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]
        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(42)
    features, labels, adj_mat = load_cora(args.data)
    idx = torch.arange(len(labels))
    idx_val, idx_train = idx[:20], idx[20:]
    gcn = GCN(features.shape[1], 16, labels.max().item() + 1, True, 0.0)
    if os.path.exists(args.init):
        gcn.load_state_dict(torch.load(args.init))
    else:
        torch.save(gcn.state_dict(), args.init)
    optimizer = Adam(gcn.parameters(), lr=0.01, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    losses = []
    for epoch in range(args.epochs):
        gcn.train()
        optimizer.zero_grad()
        output = gcn(features, adj_mat)
        loss = criterion(output[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        loss_val, acc_val = test(gcn, criterion, (features, adj_mat), labels, idx_val)
        if epoch % 10 == 0:
            print(f'Epoch: {epoch:04d} loss_train: {loss.item():.4f} loss_val: {loss_val:.4f} '
                  f'acc_val: {acc_val:.4f}')
    torch.save({"losses": torch.tensor(losses), "val": [loss_val, acc_val],
                "model": gcn.state_dict()}, args.out)


if __name__ == "__main__":
    main()
