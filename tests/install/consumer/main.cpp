// A user's program against the installed polyhe: CKKS encode, encrypt, multiply, relinearise,
// rescale, decrypt, decode, checked against the plain product, and a BGV product through the other
// umbrella header. Exit status 0 when right.
#include <polyhe/bgv.hpp>
#include <polyhe/ckks.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;
  rlwe::ParametersLiteral lit;
  lit.log_n = 13;
  lit.q_bits = {40, 30, 30};
  lit.p_bits = {40};
  const auto ctx = ckks::Context::create(rlwe::Parameters::create(lit));  // scale 2^30

  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const ckks::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  const ckks::Evaluator eval = ctx->evaluator(keygen.relinearization_key(sk));

  std::vector<double> x(ctx->slots()), y(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.001 * static_cast<double>(i % 1000);
    y[i] = 1.5 - x[i];
  }
  const auto cx = encryptor.encrypt(ctx->encode(x));
  const auto cy = encryptor.encrypt(ctx->encode(y));
  const auto got = ctx->decode_real(decryptor.decrypt(eval.rescale(eval.multiply_relin(cx, cy))));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::fmax(worst, std::fabs(got[i] - x[i] * y[i]));

  // BGV over the same ring: the integer product, exact.
  const auto ictx = bgv::Context::create(ctx->params(), 65537);
  rlwe::KeyGenerator ikeygen = ictx->key_generator();
  const rlwe::SecretKey isk = ikeygen.secret_key();
  const bgv::Encryptor iencryptor = ictx->encryptor(ikeygen.public_key(isk));
  const bgv::Decryptor idecryptor = ictx->decryptor(isk);
  const bgv::Evaluator ieval = ictx->evaluator(ikeygen.relinearization_key(isk));
  const std::vector<std::int64_t> a = {3, -4, 5}, b = {7, 8, -9};
  const auto prod = ieval.multiply_relin(iencryptor.encrypt(ictx->encode(a)),
                                         iencryptor.encrypt(ictx->encode(b)));
  const std::vector<std::int64_t> ab = ictx->decode_signed(idecryptor.decrypt(prod));
  const bool exact = ab[0] == 21 && ab[1] == -32 && ab[2] == -45;

  std::printf("installed polyhe %s: x*y over %zu slots, largest error %.2e; BGV product %s\n",
              polyhe::kVersion, x.size(), worst, exact ? "exact" : "WRONG");
  return worst < 1e-3 && exact ? 0 : 1;
}
