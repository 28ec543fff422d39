"""Generative adversarial networks (the book's chapter 20): one optimisation step of the
discriminator and one of the generator, as the book's GAN chapter alternates them."""
from dagrad import torch


def update_D(X, Z, net_D, net_G, loss, trainer_D):
    """One step of the discriminator D on real examples X (batch, ...) and noise Z:
    loss_D = (loss(D(X), 1) + loss(D(G(Z)), 0)) / 2, with G(Z) detached so that only D's
    parameters get gradients; ``trainer_D`` (an optimiser over D's parameters) steps once.
    Returns loss_D (the value before the step)."""
    batch_size = X.shape[0]
    ones = torch.ones((batch_size,), device=X.device)
    zeros = torch.zeros((batch_size,), device=X.device)
    trainer_D.zero_grad()
    real_Y = net_D(X)
    fake_X = net_G(Z)
    fake_Y = net_D(fake_X.detach())            # G is not trained by D's loss
    loss_D = (loss(real_Y, ones.reshape(real_Y.shape))
              + loss(fake_Y, zeros.reshape(fake_Y.shape))) / 2
    loss_D.backward()
    trainer_D.step()
    return loss_D


def update_G(Z, net_D, net_G, loss, trainer_G):
    """One step of the generator G on noise Z (batch, latent): loss_G = loss(D(G(Z)), 1), the
    "non-saturating" objective (G makes D call its output real); ``trainer_G`` steps G's
    parameters (D's gradients are computed but not applied). Returns loss_G."""
    batch_size = Z.shape[0]
    ones = torch.ones((batch_size,), device=Z.device)
    trainer_G.zero_grad()
    fake_X = net_G(Z)
    fake_Y = net_D(fake_X)                     # D has just changed: recompute its verdict
    loss_G = loss(fake_Y, ones.reshape(fake_Y.shape))
    loss_G.backward()
    trainer_G.step()
    return loss_G
