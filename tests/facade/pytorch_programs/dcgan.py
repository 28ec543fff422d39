"""pytorch/examples' dcgan, condensed: the example's Generator and Discriminator (transposed
convolutions, batch norm, LeakyReLU, ``weights_init`` applied by ``net.apply``), its imports as
written (``import torch.nn.parallel``, ``import torch.backends.cudnn as cudnn``,
``cudnn.benchmark = True``) and its training step (BCELoss, ``label.fill_``, two Adam
optimizers). Images and noise come from a ``.pt`` file instead of torchvision's FakeData, so
both frameworks see the same numbers.

``python dcgan.py --data d.pt --init w.pt --out r.pt`` (PyTorch; it writes its initial weights
to w.pt), then the same line after ``python -m dagrad.torch.run`` (dagrad, from those weights).
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.parallel
import torch.backends.cudnn as cudnn
import torch.optim as optim
import torch.utils.data

parser = argparse.ArgumentParser()
parser.add_argument('--data', required=True)
parser.add_argument('--init', required=True)
parser.add_argument('--out', required=True)
parser.add_argument('--batchSize', type=int, default=4)
parser.add_argument('--nz', type=int, default=8)
parser.add_argument('--ngf', type=int, default=4)
parser.add_argument('--ndf', type=int, default=4)
parser.add_argument('--lr', type=float, default=0.0002)
parser.add_argument('--beta1', type=float, default=0.5)
opt = parser.parse_args()
print(opt)
torch.manual_seed(999)
cudnn.benchmark = True
device = torch.device("cpu")
data = torch.load(opt.data)
dataset = torch.utils.data.TensorDataset(data["images"])
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=False,
                                         num_workers=2)
ngpu, nz, ngf, ndf, nc = 1, int(opt.nz), int(opt.ngf), int(opt.ndf), 3


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh()
        )

    def forward(self, input):
        if (input.is_cuda or input.is_xpu) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        if (input.is_cuda or input.is_xpu) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output.view(-1, 1).squeeze(1)


netG = Generator(ngpu).to(device)
netG.apply(weights_init)
netD = Discriminator(ngpu).to(device)
netD.apply(weights_init)
if os.path.exists(opt.init):
    weights = torch.load(opt.init)
    netG.load_state_dict(weights["G"])
    netD.load_state_dict(weights["D"])
else:
    torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, opt.init)
print(netG)
print(netD)

criterion = nn.BCELoss()
real_label = 1
fake_label = 0
optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

losses = []
for i, batch in enumerate(dataloader, 0):
    netD.zero_grad()
    real_cpu = batch[0].to(device)
    batch_size = real_cpu.size(0)
    label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)
    output = netD(real_cpu)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()

    noise = data["noise"][i].to(device)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()

    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    print('[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
          % (i, len(dataloader), errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
    losses.append([errD.item(), errG.item(), D_x, D_G_z1, D_G_z2])

torch.save({"losses": torch.tensor(losses), "G": netG.state_dict(), "D": netD.state_dict()},
           opt.out)
