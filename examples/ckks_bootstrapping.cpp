// CKKS bootstrapping: a computation deeper than the modulus chain. Each slot holds cos(θ); five
// applications of the double-angle formula x ← 2x² − 1 give cos(32·θ), five levels of products,
// while the parameters leave the user only three. Whenever the ciphertext reaches level 0 it is
// bootstrapped back up. Checks its own result; run by CTest (example.ckks_bootstrapping).
//
// The ring here is a toy one (N = 2^10, SecurityLevel::insecure_none) so that the example runs in
// a second or two; a secure bootstrappable set needs N = 2^16 (docs/ckks-bootstrapping.md), and
// the code is the same.
#include <polyhe/ckks.hpp>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

int main() {
  using namespace polyhe;

  // EvalMod's sine series with 16 baby steps: 12 levels for the bootstrap (CoeffToSlot 2,
  // EvalMod 8, SlotToCoeff 2), fewer products than in its optimal depth.
  ckks::BootstrapConfig config;
  config.eval_mod_baby_steps = 16;
  const std::size_t boot_levels = 12;

  // q_0 of 60 bits (the message, at 2^40, must be small against it), three user levels of 40
  // bits, then 58-bit levels for the bootstrap; a sparse secret (h = 64) keeps ModRaise's
  // overflow I small, so EvalMod's interval [-K, K] with K = 16 holds it.
  rlwe::ParametersLiteral lit;
  lit.log_n = 10;
  lit.q_bits = {60, 40, 40, 40};
  lit.q_bits.insert(lit.q_bits.end(), boot_levels, 58);
  lit.p_bits = {60, 60, 60};
  lit.hamming_weight = 64;
  lit.security = rlwe::SecurityLevel::insecure_none;  // a toy ring: see above
  const auto ctx = ckks::Context::create(rlwe::Parameters::create(lit), std::ldexp(1.0, 40));

  // The bootstrapper names the rotations it needs; one key generation makes exactly those.
  const ckks::Bootstrapper boot(*ctx, config);
  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const ckks::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  const std::vector<std::int64_t> steps = boot.rotations();
  const ckks::Evaluator eval = ctx->evaluator(
      keygen.relinearization_key(sk), keygen.rotation_keys(sk, steps, /*conjugation=*/true));

  std::vector<double> theta(ctx->slots()), x(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) {
    theta[i] = std::numbers::pi * static_cast<double>(i) / static_cast<double>(x.size());
    x[i] = std::cos(theta[i]);
  }
  // Encoded at level 0: the computation starts with a bootstrap, as one coming from a deeper
  // pipeline would.
  ckks::Ciphertext ct = encryptor.encrypt(ctx->encode(x, std::size_t{0}, ctx->scale()));

  const int doublings = 5;
  int bootstraps = 0;
  for (int k = 0; k < doublings; ++k) {
    if (ct.level() == 0) {
      ct = boot.bootstrap(eval, ct);  // back to level boot.levels_after(), same scale
      ++bootstraps;
    }
    // 2x² − 1: one product and its rescale (one level); the doubling and the constant are free.
    ct = eval.add_const(eval.multiply_integer(eval.rescale(eval.multiply_relin(ct, ct)), 2), -1.0);
  }

  const std::vector<double> got = ctx->decode_real(decryptor.decrypt(ct));
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::fmax(worst, std::fabs(got[i] - std::cos(32 * theta[i])));
  std::printf(
      "cos(32 theta) by %d doublings over %zu slots: %d bootstraps (%zu levels each, %zu left "
      "after), level %zu at the end, largest error %.1e (%.1f bits)\n",
      doublings, got.size(), bootstraps, boot.depth(), boot.levels_after(), ct.level(), worst,
      -std::log2(worst));
  // 2x² − 1 has slope 4x: each doubling can multiply an error by up to 4, five by 4^5 = 2^10,
  // so the bootstraps' 2^-17 to 2^-19 grows to about 2^-8 near x = ±1.
  return worst < 1e-2 ? 0 : 1;
}
