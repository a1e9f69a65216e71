// CKKS basics: approximate arithmetic on vectors of real numbers.
// Encode, encrypt, add, multiply, relinearise, rescale, rotate, decrypt, decode, and a ciphertext
// serialised and read back. Checks its own results; run by CTest (example.ckks_basics).
#include <polyhe/ckks.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;

  // N = 2^13 (4096 slots); primes of 40, 30, 30 bits and a 40-bit special prime for key
  // switching: 128-bit secure (checked). The default scale is the top prime's size, 2^30.
  rlwe::ParametersLiteral lit;
  lit.log_n = 13;
  lit.q_bits = {40, 30, 30};
  lit.p_bits = {40};
  const auto ctx = ckks::Context::create(rlwe::Parameters::create(lit));

  // Keys, and the objects that use them: the context makes each one, and each keeps its keys.
  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const std::int64_t steps[] = {1};
  const ckks::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  const ckks::Evaluator eval =
      ctx->evaluator(keygen.relinearization_key(sk), keygen.rotation_keys(sk, steps));

  std::vector<double> x(ctx->slots()), y(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::sin(0.01 * static_cast<double>(i));
    y[i] = 0.5 + 0.0001 * static_cast<double>(i);
  }
  const ckks::Ciphertext cx = encryptor.encrypt(ctx->encode(x));  // top level, scale 2^30
  const ckks::Ciphertext cy = encryptor.encrypt(ctx->encode(y));

  // (x + y) · y, rescaled back to about 2^30 (one level down), then rotated left by one slot.
  const ckks::Ciphertext sum = eval.add(cx, cy);
  const ckks::Ciphertext product = eval.rescale(eval.multiply_relin(sum, cy));
  const ckks::Ciphertext rotated = eval.rotate(product, 1);

  // A ciphertext travels as bytes and is read back under the same parameters.
  const std::vector<std::uint8_t> bytes = rlwe::serialize(rotated);
  const ckks::Ciphertext received = ckks::load_ciphertext(bytes, ctx->params());

  const std::vector<double> got = ctx->decode_real(decryptor.decrypt(received));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t j = (i + 1) % x.size();  // slot i now holds slot i + 1
    worst = std::fmax(worst, std::fabs(got[i] - (x[j] + y[j]) * y[j]));
  }
  std::printf(
      "((x + y) * y) rotated by 1: %zu slots, level %zu, %zu bytes serialised, "
      "largest error %.1e\n",
      got.size(), received.level(), bytes.size(), worst);
  return worst < 1e-3 ? 0 : 1;
}
