"""§3.5 (linear regression, concise) and §9.6 (an RNN language model, concise) as the book
writes them, reading The Time Machine from ../data/timemachine.txt; prints its numbers as
JSON. It imports torch and d2l as the book does: on dagrad it runs through
``python -m dagrad.torch.run``."""
import json

import torch
from d2l import torch as d2l

torch.manual_seed(0)
data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
model = d2l.LinearRegression(lr=0.03)
trainer = d2l.Trainer(max_epochs=3)
trainer.fit(model, data)
w, b = model.get_w_b()

data = d2l.TimeMachine(batch_size=32, num_steps=16, num_train=256, num_val=64)
rnn = d2l.RNN(num_inputs=len(data.vocab), num_hiddens=16)
lm = d2l.RNNLM(rnn, vocab_size=len(data.vocab), lr=1)
trainer = d2l.Trainer(max_epochs=2, gradient_clip_val=1)
trainer.fit(lm, data)
print(json.dumps({"w": w.reshape(-1).tolist(), "b": b.tolist(),
                  "ppl": [float(p.y) for p in lm.board.data["val_ppl"]],
                  "prediction": lm.predict("it has", 10, data.vocab)}))
