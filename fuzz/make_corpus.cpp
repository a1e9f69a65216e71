// Writes the seed corpus of every fuzz target: `fuzz_make_corpus DIR` fills DIR/<target>/ with a
// few small valid inputs and a few edge ones (scripts/fuzz.sh --regenerate-corpus; the seeds are
// committed under fuzz/corpus/). Everything comes from fixed seeds (fuzz_common.hpp), so the
// same bytes are written on every run.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace {

using namespace polyhe;
using fuzz::Bytes;
namespace fs = std::filesystem;

class Corpus {
 public:
  explicit Corpus(fs::path root) : root_(std::move(root)) {}
  void add(const std::string& target, const std::string& name, const Bytes& bytes) {
    const fs::path dir = root_ / target;
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
  }
  void add(const std::string& target, const std::string& name, const std::string& text) {
    add(target, name, Bytes(text.begin(), text.end()));
  }

 private:
  fs::path root_;
};

Bytes cut(Bytes b, std::size_t size) {
  b.resize(size);
  return b;
}

rlwe::ParametersPtr params_of(int log_n, std::size_t m, std::vector<int> q_bits,
                              std::vector<int> p_bits, rlwe::SecurityLevel security,
                              std::size_t dnum = 0, std::size_t h = 0) {
  rlwe::ParametersLiteral lit;
  lit.log_n = log_n;
  lit.m = m;
  lit.q_bits = std::move(q_bits);
  lit.p_bits = std::move(p_bits);
  lit.security = security;
  lit.dnum = dnum;
  lit.hamming_weight = h;
  return rlwe::Parameters::create(lit);
}

void parameters(Corpus& c, const fuzz::Fixture& f) {
  using rlwe::SecurityLevel;
  const Bytes fixture = rlwe::serialize(*f.params);
  c.add("fuzz_parameters", "fixture", fixture);
  c.add("fuzz_parameters", "n32_three_q",
        rlwe::serialize(*params_of(5, 0, {50, 40, 40}, {50}, SecurityLevel::insecure_none)));
  c.add("fuzz_parameters", "n32_two_p_dnum2_sparse",
        rlwe::serialize(
            *params_of(5, 0, {40, 30, 30, 30, 30}, {55, 55}, SecurityLevel::insecure_none, 2, 8)));
  c.add("fuzz_parameters", "n4096_bits128",
        rlwe::serialize(*params_of(12, 0, {30, 25}, {30}, SecurityLevel::bits128)));
  c.add("fuzz_parameters", "m15_cyclotomic",
        rlwe::serialize(*params_of(0, 15, {30, 30}, {30}, SecurityLevel::insecure_none)));
  // Edge: the header alone, and a payload byte changed under the original hash.
  c.add("fuzz_parameters", "header_only", cut(fixture, serial::kHeaderBytes));
  Bytes damaged = fixture;
  damaged.back() ^= 1;
  c.add("fuzz_parameters", "damaged_hash", damaged);
}

void keys(Corpus& c, const fuzz::Fixture& f) {
  rlwe::KeyGenerator keygen(f.params, fuzz::fixed_seed(9));
  const rlwe::SecretKey sk2 = keygen.secret_key();
  const Bytes sk = rlwe::serialize(f.sk);
  c.add("fuzz_secret_key", "fixture", sk);
  c.add("fuzz_secret_key", "other", rlwe::serialize(sk2));
  c.add("fuzz_secret_key", "truncated", cut(sk, sk.size() - 8));
  c.add("fuzz_secret_key", "public_key_kind", rlwe::serialize(f.pk));

  c.add("fuzz_public_key", "fixture", rlwe::serialize(f.pk));
  c.add("fuzz_public_key", "other", rlwe::serialize(keygen.public_key(sk2)));
  c.add("fuzz_public_key", "header_only", cut(rlwe::serialize(f.pk), serial::kHeaderBytes));

  const std::uint64_t rot1 = rlwe::galois_element_for_rotation(f.params->n(), 1);
  const std::uint64_t conj = rlwe::galois_element_for_conjugation(f.params->n());
  c.add("fuzz_key_switch_key", "relin", rlwe::serialize(f.relin));
  c.add("fuzz_key_switch_key", "galois_rot1", rlwe::serialize(f.galois.at(rot1)));
  c.add("fuzz_key_switch_key", "galois_conj", rlwe::serialize(f.galois.at(conj)));

  c.add("fuzz_galois_keys", "rot1_conj", rlwe::serialize(f.galois));
  c.add("fuzz_galois_keys", "empty", rlwe::serialize(rlwe::GaloisKeys{f.params, {}}));
  const std::uint64_t three[] = {3};
  c.add("fuzz_galois_keys", "element3", rlwe::serialize(keygen.galois_keys(sk2, three)));
}

void ciphertexts(Corpus& c, const fuzz::Fixture& f) {
  rlwe::Encryptor sk_enc(f.sk, fuzz::fixed_seed(5));
  const rlwe::Ciphertext seeded = sk_enc.encrypt_zero(f.params->max_level());
  rlwe::Ciphertext ckks_low = sk_enc.encrypt_zero(0);  // a CKKS scale at level 0
  ckks_low.set_scale(1.25 * (1 << 30));
  (void)ckks_low[1];                                  // touched: stored whole
  rlwe::Ciphertext bgv_low = sk_enc.encrypt_zero(0);  // a BGV factor at level 0
  bgv_low.set_factor(7);
  (void)bgv_low[1];
  rlwe::Ciphertext seeded_factor = seeded;
  seeded_factor.set_factor(65536);
  c.add("fuzz_ciphertext", "public_key_encryption", rlwe::serialize(f.ct));
  c.add("fuzz_ciphertext", "seeded", rlwe::serialize(seeded));
  c.add("fuzz_ciphertext", "size3", rlwe::serialize(f.ct_three));
  c.add("fuzz_ciphertext", "level0_ckks_scale", rlwe::serialize(ckks_low));
  c.add("fuzz_ciphertext", "level0_bgv_factor", rlwe::serialize(bgv_low));
  c.add("fuzz_ciphertext", "seeded_factor", rlwe::serialize(seeded_factor));
  // Origins the loaders check: CKKS and BGV (t = 65537) under the fixture's key set.
  const rlwe::KeyId key = rlwe::key_id(f.pk);
  c.add("fuzz_ciphertext", "origin_ckks", rlwe::serialize(ckks_low, ckks::origin(key)));
  c.add("fuzz_ciphertext", "origin_bgv",
        rlwe::serialize(bgv_low, bgv::origin(*fuzz::bgv_context(), key)));
}

void plaintexts(Corpus& c, const fuzz::Fixture& f) {
  const ckks::ContextPtr& ckks_ctx = fuzz::ckks_context();
  std::vector<std::complex<double>> z(ckks_ctx->slots());
  for (std::size_t i = 0; i < z.size(); ++i) {
    z[i] = {0.25 * static_cast<double>(i), -0.5 + 0.125 * static_cast<double>(i)};
  }
  c.add("fuzz_ckks_plaintext", "top_level",
        ckks::serialize(ckks_ctx->encode(z, f.params->max_level(), 1u << 20)));
  c.add("fuzz_ckks_plaintext", "level0", ckks::serialize(ckks_ctx->encode(z, 0, 1u << 25)));
  c.add("fuzz_ckks_plaintext", "zero",
        ckks::serialize(ckks_ctx->encode(std::vector<std::complex<double>>{}, 1, 1.0)));

  const bgv::ContextPtr& ctx = fuzz::bgv_context();
  std::vector<std::uint64_t> slots(ctx->n());
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = i * 4099 % fuzz::kPlainModulus;
  c.add("fuzz_bgv_plaintext", "batched", bgv::serialize(ctx->encode(slots), *ctx));
  c.add("fuzz_bgv_plaintext", "zero",
        bgv::serialize(bgv::Plaintext{std::vector<std::uint64_t>(ctx->n(), 0)}, *ctx));
  c.add("fuzz_bgv_plaintext", "all_t_minus_1",
        bgv::serialize(
            bgv::Plaintext{std::vector<std::uint64_t>(ctx->n(), fuzz::kPlainModulus - 1)}, *ctx));
}

void polymul(Corpus& c) {
  const std::string t = "fuzz_polymul_input";
  c.add(t, "small", R"({"q": 17, "a": [1, 2, 3, 4], "b": [5, 6, 7, 8]})");
  c.add(t, "strings",
        R"({"q":"18446744069414584321","a":["18446744069414584320","0"],"b":["1","2"]})");
  c.add(t, "reordered_ws",
        "{\n  \"b\" : [ 0 ],\n  \"a\" : [ 18446744073709551615 ],\n  \"q\" : 97\n}\n");
  c.add(t, "empty_arrays", R"({"q":3,"a":[],"b":[]})");
  // Edge: refused inputs (a float, a nested array, a duplicate key, truncation).
  c.add(t, "float", R"({"q":17,"a":[1.5],"b":[1]})");
  c.add(t, "nested", R"({"q":17,"a":[[1]],"b":[1]})");
  c.add(t, "duplicate", R"({"q":17,"a":[1],"a":[2],"b":[1]})");
  c.add(t, "truncated", R"({"q":17,"a":[1,2)");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR  (writes OUT_DIR/<target>/<seed>)\n", argv[0]);
    return 2;
  }
  try {
    Corpus c{fs::path(argv[1])};
    const fuzz::Fixture& f = fuzz::fixture();
    parameters(c, f);
    keys(c, f);
    ciphertexts(c, f);
    plaintexts(c, f);
    polymul(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_corpus: %s\n", e.what());
    return 1;
  }
  return 0;
}
