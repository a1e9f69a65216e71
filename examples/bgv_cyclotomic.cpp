// BGV over HElib's ring Z[X]/Φ_21845(X): 1024 slots of GF(65537^16), a product of two encrypted
// vectors and an automorphism that moves the slots, checked against the plaintext arithmetic.
// Built and run by the test suite (CTest example.bgv_cyclotomic).
#include <polyhe/bgv.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

int main() {
  using u64 = std::uint64_t;
  namespace bgv = polyhe::bgv;
  namespace rlwe = polyhe::rlwe;

  // The ring Φ_m for m = 5·17·257 (φ(m) = 16384 coordinates), four 60-bit primes and one special
  // prime: 300 bits, within the 128-bit bound of the table's 2^14 row.
  rlwe::ParametersLiteral lit;
  lit.m = 21845;
  lit.q_bits = {60, 60, 60, 60};
  lit.p_bits = {60};
  const auto params = rlwe::Parameters::create(lit);
  const u64 t = 65537;
  const auto ctx = bgv::Context::create(params, t);
  const bgv::SlotEncoder& slots = ctx->slot_encoder();
  const std::size_t k = slots.slot_count();   // 1024
  const std::size_t d = slots.slot_degree();  // 16: each slot is an element of GF(t^16)
  std::printf("m = %zu: %zu slots of GF(%llu^%zu)\n", params->m(), k,
              static_cast<unsigned long long>(t), d);

  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const u64 g = slots.generators()[0];  // an automorphism X -> X^g that rotates the slots
  const bgv::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
  const bgv::Decryptor decryptor = ctx->decryptor(sk);
  const bgv::Evaluator ev =
      ctx->evaluator(keygen.relinearization_key(sk), keygen.galois_keys(sk, std::vector<u64>{g}));

  // Two vectors of slot values (d coefficients per slot, each below t).
  std::vector<u64> x(k * d), y(k * d);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = (3 * i + 1) % t;
    y[i] = (7 * i + 5) % t;
  }
  const bgv::Ciphertext cx = encryptor.encrypt(bgv::Plaintext{slots.encode(x)});
  const bgv::Ciphertext cy = encryptor.encrypt(bgv::Plaintext{slots.encode(y)});

  // x·y slot by slot (products in GF(t^16)), then the modulus switch; and σ_g(x).
  const auto product = ev.mod_switch_to_next(ev.multiply_relin(cx, cy));
  const auto moved = ev.apply_galois(cx, g);
  const auto got_product = slots.decode(decryptor.decrypt(product).coeffs);
  const auto got_moved = slots.decode(decryptor.decrypt(moved).coeffs);

  const auto action = slots.automorphism_action(g);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const auto want = slots.multiply(std::span<const u64>(x).subspan(i * d, d),
                                     std::span<const u64>(y).subspan(i * d, d));
    const auto moved_want = slots.frobenius(
        std::span<const u64>(x).subspan(action[i].source * d, d), action[i].frobenius);
    for (std::size_t c = 0; c < d; ++c) {
      wrong += got_product[i * d + c] != want[c] ? 1 : 0;
      wrong += got_moved[i * d + c] != moved_want[c] ? 1 : 0;
    }
  }
  std::printf("product: noise budget %d bits left; slot 1 of sigma_%llu(x) is slot %zu of x\n",
              decryptor.noise_budget(product), static_cast<unsigned long long>(g),
              action[1].source);
  std::printf("%s\n", wrong == 0 ? "every slot as expected" : "MISMATCH");
  return wrong == 0 ? 0 : 1;
}
