// BFV basics: exact arithmetic modulo t on vectors of integers (the scale-invariant mode of
// bgv::Evaluator). Encode, encrypt, add, multiply, relinearise, rotate, decrypt, decode, and a
// ciphertext serialised and read back. Checks its own results; run by CTest (example.bfv_basics).
#include <polyhe/bgv.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;

  // N = 2^13 slots modulo t = 65537 (t ≡ 1 mod 2N: batching), three 50-bit primes and a 60-bit
  // special prime: 128-bit secure (checked).
  rlwe::ParametersLiteral lit;
  lit.log_n = 13;
  lit.q_bits = {50, 50, 50};
  lit.p_bits = {60};
  const std::uint64_t t = 65537;
  const auto ctx = bgv::Context::create(rlwe::Parameters::create(lit), t, bgv::Scheme::bfv);

  // Keys, and the objects that use them: the context makes each one, and each keeps its keys.
  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const std::int64_t steps[] = {1};
  const bgv::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
  const bgv::Decryptor decryptor = ctx->decryptor(sk);
  const bgv::Evaluator eval =
      ctx->evaluator(keygen.relinearization_key(sk), keygen.rotation_keys(sk, steps));

  // Slots are two rows of N/2; rotate_rows(1) moves each row left by one.
  const std::size_t n = ctx->n(), row = n / 2;
  std::vector<std::int64_t> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<std::int64_t>(i % 200) - 100;
    y[i] = static_cast<std::int64_t>(i % 7) + 1;
  }
  const bgv::Ciphertext cx = encryptor.encrypt(ctx->encode(x));
  const bgv::Ciphertext cy = encryptor.encrypt(ctx->encode(y));

  // (x + y) · y, then rotated.
  const auto product = eval.multiply_relin(eval.add(cx, cy), cy);
  const auto rotated = eval.rotate_rows(product, 1);

  const std::vector<std::uint8_t> bytes = rlwe::serialize(rotated);
  const bgv::Ciphertext received = bgv::load_ciphertext(bytes, *ctx);

  const std::vector<std::int64_t> got = ctx->decode_signed(decryptor.decrypt(received));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i / row) * row + (i % row + 1) % row;  // slot i now holds slot j
    wrong += got[i] != (x[j] + y[j]) * y[j] ? 1 : 0;
  }
  std::printf(
      "((x + y) * y) rotated by 1: %zu slots, %zu wrong, %zu bytes serialised, "
      "noise budget %d bits left\n",
      n, wrong, bytes.size(), decryptor.noise_budget(received));
  return wrong == 0 ? 0 : 1;
}
