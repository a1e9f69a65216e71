#include "bench_integer.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/encoder.hpp"
#include "polyhe/bgv/slots.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/rns/basis.hpp"
#include "scheme_bench.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

constexpr int kMinLogN = 2;
constexpr int kMaxLogN = 17;

bool contains(std::span<const IntegerOp> ops, IntegerOp op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::string op_names(std::span<const IntegerOp> ops) {
  std::string s;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) s += ", ";
    s += to_string(ops[i]);
  }
  return s;
}

/// The ops named in `spec`, in the scheme's order; all of the scheme's when `spec` is empty.
std::vector<IntegerOp> parse_ops(const std::string& spec, IntegerScheme scheme) {
  const std::span<const IntegerOp> all = scheme_ops(scheme);
  if (spec.empty()) return {all.begin(), all.end()};
  std::vector<bool> wanted(all.size(), false);
  for (const std::string& name : split_list(spec, "--ops")) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](IntegerOp op) { return to_string(op) == name; });
    if (it == all.end()) {
      throw UsageError("--ops: unknown op '" + name + "'; use " + op_names(all) +
                       " (a comma list)");
    }
    wanted[static_cast<std::size_t>(it - all.begin())] = true;
  }
  std::vector<IntegerOp> ops;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (wanted[i]) ops.push_back(all[i]);
  }
  return ops;
}

/// Reads --primes and --special into the literal's bit sizes (the last prime is P without
/// --special, as SEAL and TenSEAL read such a list).
void parse_primes(const BenchIntegerArgs& args, rlwe::ParametersLiteral& literal) {
  if (args.primes.empty()) {
    throw UsageError("--primes: empty; give the bit sizes of the primes, e.g. 48,48,49");
  }
  std::vector<int> primes =
      parse_int_sequence(args.primes, "--primes", 2, RnsBasis::kMaxBits, rlwe::kMaxPrimes);
  if (args.special.empty()) {
    if (primes.size() < 2) {
      throw UsageError("--primes " + args.primes +
                       ": 1 prime without --special; at least 2 are needed (the last one is the "
                       "special prime of key switching)");
    }
    literal.p_bits = {primes.back()};
    primes.pop_back();
  } else {
    literal.p_bits =
        parse_int_sequence(args.special, "--special", 2, RnsBasis::kMaxBits, rlwe::kMaxPrimes);
  }
  literal.q_bits = primes;
}

/// Reads --ops and --rotate-step: rotations need batching, so without it an explicit rotate or
/// --rotate-step is an error and the default op list leaves rotate out (config.skipped).
void parse_rotations(const BenchIntegerArgs& args, IntegerScheme scheme, BenchIntegerConfig& c) {
  c.ops = parse_ops(args.ops, scheme);
  const std::string two_n = std::to_string(std::uint64_t{2} << (args.log_n - 1));
  const std::string why_not = "t = " + std::to_string(c.plain_modulus) +
                              " does not batch (batching needs a prime t ≡ 1 mod 2N = " + two_n +
                              ")";
  if (!c.batching && !args.ops.empty() && contains(c.ops, IntegerOp::rotate)) {
    throw UsageError("--ops " + args.ops + ": rotate needs batching; " + why_not);
  }
  if (!c.batching && args.rotate_step) {
    throw UsageError("--rotate-step " + std::to_string(*args.rotate_step) +
                     ": rotations need batching; " + why_not);
  }
  if (!c.batching && contains(c.ops, IntegerOp::rotate)) {
    std::erase(c.ops, IntegerOp::rotate);
    c.skipped.push_back({IntegerOp::rotate, "t = " + std::to_string(c.plain_modulus) +
                                                " does not batch: rotations need a prime t ≡ 1 "
                                                "mod 2N = " +
                                                two_n});
  }
  c.rotate_step = args.rotate_step.value_or(1);
  const std::int64_t row = std::int64_t{1} << (args.log_n - 1);  // columns of the 2 × N/2 slots
  if (c.rotate_step == 0 || c.rotate_step <= -row || c.rotate_step >= row) {
    throw UsageError("--rotate-step: " + std::to_string(c.rotate_step) +
                     " is not a rotation of the rows of " + std::to_string(row) +
                     " slots; use 0 < |step| < N/2 = " + std::to_string(row));
  }
}

/// The multiplicative order of t mod m (gcd(t, m) = 1): the degree of Φ_m's factors mod t.
std::uint64_t order_mod(std::uint64_t t, std::uint64_t m) {
  const std::uint64_t base = t % m;
  std::uint64_t x = base;
  std::uint64_t d = 1;
  while (x != 1 % m) {
    x = x * base % m;  // m ≤ 2^17: no overflow
    ++d;
  }
  return d;
}

/// --ops for odd m: with slots (t = p^r, SlotEncoder), rotate is the slots rotated as one row by
/// --rotate-step
/// (default 1; 0 < |step| < k); without them, the key-switched automorphism X → X^2 (no step).
void parse_odd_m_ops(const BenchIntegerArgs& args, IntegerScheme scheme, BenchIntegerConfig& c) {
  c.ops = parse_ops(args.ops, scheme);
  // t = p^r: Φ_m mod t has φ(m)/d factors of degree d = ord_m(p), the slots (up to SlotEncoder's
  // limit on d); another t has the coefficient encoder only, its degree shown as ord_m(t).
  const auto [p, r] = prime_power(args.plain_modulus);
  c.slot_degree = order_mod(p != 0 ? p : args.plain_modulus, args.m);
  c.slots = p != 0 && args.plain_modulus < (std::uint64_t{1} << 62) &&
            c.slot_degree <= bgv::SlotEncoder::kMaxSlotDegree;
  if (!c.slots) {
    if (args.rotate_step) {
      throw UsageError("--rotate-step " + std::to_string(*args.rotate_step) +
                       ": t = " + std::to_string(args.plain_modulus) +
                       " gives no slots over Phi_m, so rotate is the key-switched "
                       "automorphism X -> X^2 (no step)");
    }
    c.galois_element = 2;
    return;
  }
  std::uint64_t phi = 0;
  for (std::uint64_t x = 1; x < args.m; ++x) phi += std::gcd(x, args.m) == 1 ? 1 : 0;
  const auto k = static_cast<std::int64_t>(phi / c.slot_degree);
  if (k == 1) {  // one slot: nothing to rotate
    const std::string why = "Phi_" + std::to_string(args.m) +
                            " has one slot mod t = " + std::to_string(args.plain_modulus) +
                            ": nothing to rotate";
    if (args.rotate_step) throw UsageError("--rotate-step: " + why);
    if (!args.ops.empty() && contains(c.ops, IntegerOp::rotate)) {
      throw UsageError("--ops " + args.ops + ": " + why);
    }
    if (contains(c.ops, IntegerOp::rotate)) {
      std::erase(c.ops, IntegerOp::rotate);
      c.skipped.push_back({IntegerOp::rotate, why});
    }
    return;
  }
  c.rotate_step = args.rotate_step.value_or(1);
  if (c.rotate_step == 0 || c.rotate_step <= -k || c.rotate_step >= k) {
    throw UsageError("--rotate-step: " + std::to_string(c.rotate_step) +
                     " rotates the k = " + std::to_string(k) +
                     " slots of Phi_m by nothing or all the way round; need 0 < |step| < k");
  }
}

/// mod_switch drops q_L, so it needs L ≥ 1: an error when asked for by --ops, skipped otherwise.
void check_mod_switch(const BenchIntegerArgs& args, BenchIntegerConfig& c) {
  if (!contains(c.ops, IntegerOp::mod_switch) || c.literal.q_bits.size() >= 2) return;
  if (!args.ops.empty()) {
    throw UsageError("--ops " + args.ops +
                     ": mod_switch drops the last ciphertext prime, and there is only one (L = "
                     "0); give --primes at least 2 ciphertext primes");
  }
  std::erase(c.ops, IntegerOp::mod_switch);
  c.skipped.push_back(
      {IntegerOp::mod_switch, "1 ciphertext prime (L = 0): there is no prime to drop"});
}

}  // namespace

std::string_view to_string(IntegerScheme scheme) {
  switch (scheme) {
    case IntegerScheme::bfv: return "bfv";
    case IntegerScheme::bgv: return "bgv";
  }
  return "?";
}

std::string scheme_title(IntegerScheme scheme) {
  std::string s(to_string(scheme));
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return s;
}

bgv::Scheme integer_scheme(IntegerScheme scheme) {
  return scheme == IntegerScheme::bfv ? bgv::Scheme::bfv : bgv::Scheme::bgv;
}

std::span<const IntegerOp> scheme_ops(IntegerScheme scheme) {
  switch (scheme) {
    case IntegerScheme::bfv: return kBfvOps;
    case IntegerScheme::bgv: return kBgvOps;
  }
  return {};
}

std::string_view to_string(IntegerOp op) {
  switch (op) {
    case IntegerOp::encode: return "encode";
    case IntegerOp::encrypt: return "encrypt";
    case IntegerOp::add: return "add";
    case IntegerOp::multiply_relin: return "multiply_relin";
    case IntegerOp::mod_switch: return "mod_switch";
    case IntegerOp::rotate: return "rotate";
    case IntegerOp::decrypt: return "decrypt";
    case IntegerOp::decode: return "decode";
  }
  return "?";
}

BenchIntegerConfig make_bench_integer_config(const BenchIntegerArgs& args, IntegerScheme scheme) {
  BenchIntegerConfig c;
  c.scheme = scheme;
  if (args.log_n < kMinLogN || args.log_n > kMaxLogN) {
    throw UsageError("--log-n: " + std::to_string(args.log_n) + " is outside " +
                     range_text(kMinLogN, kMaxLogN) +
                     " (below 10 the security table has no entry: add --security none)");
  }
  c.literal.log_n = args.log_n;
  if (args.m != 0) {
    if (scheme != IntegerScheme::bgv) {
      throw UsageError("--m " + std::to_string(args.m) +
                       ": rings Phi_m for odd m serve BGV only (bench bgv --m ...)");
    }
    if (args.m % 2 == 0 || args.m < 3 || args.m > PowerfulNtt::kMaxM) {
      throw UsageError("--m: " + std::to_string(args.m) + " is not odd in [3, " +
                       std::to_string(PowerfulNtt::kMaxM) + "] (for x^N + 1 give --log-n instead)");
    }
    if (std::gcd(args.plain_modulus, static_cast<std::uint64_t>(args.m)) != 1) {
      throw UsageError("--plain-modulus " + std::to_string(args.plain_modulus) +
                       ": t must be coprime to m = " + std::to_string(args.m));
    }
    c.literal.log_n = 0;
    c.literal.m = args.m;
  }
  parse_primes(args, c.literal);
  const auto q_count = static_cast<int>(c.literal.q_bits.size());
  if (args.dnum < 0 || args.dnum > q_count) {
    throw UsageError("--dnum: " + std::to_string(args.dnum) + " is outside " +
                     range_text(0, q_count) +
                     " (0: the library default; at most L + 1, the number of ciphertext primes)");
  }
  c.literal.dnum = static_cast<std::size_t>(args.dnum);
  c.literal.security = parse_security(args.security);
  if (args.plain_modulus < 2 ||
      std::bit_width(args.plain_modulus) > bgv::PlaintextModulus::kMaxBits) {
    throw UsageError("--plain-modulus: " + std::to_string(args.plain_modulus) +
                     " is outside [2, 2^60)");
  }
  c.plain_modulus = args.plain_modulus;
  c.batching =
      args.m == 0 && bgv::supports_batching(args.plain_modulus, std::size_t{1} << args.log_n);
  if (args.m != 0) {
    parse_odd_m_ops(args, scheme, c);
  } else {
    parse_rotations(args, scheme, c);
  }
  check_mod_switch(args, c);
  c.threads = checked_threads(args.threads);
  c.timing = timing_for(args.min_time_s);
  // Over Φ_m the emulated device's bound is on φ(m)'s words; a ring the device does not serve
  // (RingContext::device_serves) is refused by name when its first polynomial is placed.
  const int log_words =
      args.m != 0 ? static_cast<int>(std::bit_width(euler_phi(args.m) - 1)) : args.log_n;
  c.backend = make_bench_backend(args.backend, log_words);
  return c;
}

bgv::ContextPtr make_integer_context(const BenchIntegerConfig& config) {
  const rlwe::ParametersPtr params = create_parameters(config.literal);
  return bgv::Context::create(params, config.plain_modulus, integer_scheme(config.scheme));
}

std::string integer_json(const BenchIntegerConfig& config, const rlwe::Parameters& params,
                         const IntegerMeasurement& im) {
  // The benchmark JSON fields (docs/design.md) from measurement_json, in its order, then the
  // scheme's.
  auto j = nlohmann::ordered_json::parse(measurement_json(im.m));
  j["scheme"] = to_string(config.scheme);
  j["security"] = security_name(params.security());
  j["primes"] = bit_sizes(params.q_primes());
  j["special"] = bit_sizes(params.p_primes());
  j["dnum"] = params.dnum();
  j["plain_modulus"] = config.plain_modulus;
  j["encoder"] = config.batching ? "batch" : config.slots ? "slots" : "coefficient";
  j["log_qp"] = params.log_qp();
  if (!params.power_of_two()) {
    j["m"] = params.m();
    j["phi_m"] = params.n();
    j["slot_degree"] = config.slot_degree;
    j["slots"] = params.n() / config.slot_degree;
    j["basis"] = "powerful";
  }
  j["level"] = im.level;
  if (im.m.op == to_string(IntegerOp::rotate)) {
    if (config.galois_element != 0) {
      j["galois_element"] = config.galois_element;
    } else {
      j["rotate_step"] = config.rotate_step;
      if (!params.power_of_two()) j["rotation"] = "slots";
    }
  }
  if (im.noise_budget_fresh) j["noise_budget_fresh"] = *im.noise_budget_fresh;
  if (im.noise_budget_after) j["noise_budget_after"] = *im.noise_budget_after;
  if (im.noise_budget_after_switch) {
    j["noise_budget_after_switch"] = *im.noise_budget_after_switch;
  }
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string integer_parameters_line(const BenchIntegerConfig& config,
                                    const rlwe::Parameters& params) {
  std::ostringstream s;
  s << scheme_title(config.scheme) << ": ";
  if (params.power_of_two()) {
    s << "N = 2^" << params.log_n();
  } else {
    s << "m = " << params.m() << " (Phi_m of degree " << params.n() << ", powerful basis)";
  }
  s << ", Q = " << join(bit_sizes(params.q_primes())) << " bits (L = " << params.max_level()
    << "), P = " << join(bit_sizes(params.p_primes())) << " bits, log2(QP) = " << params.log_qp()
    << ", dnum = " << params.dnum() << ", t = " << config.plain_modulus << " ("
    << std::bit_width(config.plain_modulus) << " bits, ";
  if (config.batching) {
    s << "batching: 2 × " << params.n() / 2 << " slots";
  } else if (config.slot_degree != 0) {
    s << (config.slots ? "slots: " : "the coefficient encoder; Phi_m mod t: ")
      << params.n() / config.slot_degree << " factors of degree d = " << config.slot_degree;
    if (config.slots) {
      const auto [p, r] = prime_power(config.plain_modulus);
      s << ", " << params.n() / config.slot_degree << " slots of "
        << (r == 1 ? "GF(t^d)" : "GR(" + std::to_string(p) + "^" + std::to_string(r) + ", d)");
    }
  } else {
    s << "no batching: the coefficient encoder";
  }
  s << "), security " << security_text(params.security());
  return s.str();
}

std::string integer_table_notes(const BenchIntegerConfig& config,
                                const std::vector<IntegerMeasurement>& ms) {
  const bool bgv = config.scheme == IntegerScheme::bgv;
  std::string notes =
      "Per call, key generation excluded, every op at the top level L on N random values in "
      "[0, t): encode into a preallocated coefficient vector; encrypt = public-key encryption "
      "of an encoded plaintext (";
  notes += bgv ? "t·(encryption of zero) + m" : "encryption of zero + round(Q·m/t)";
  notes += "); add in place; multiply_relin = ";
  notes += bgv ? "tensor product + relinearisation (key switch with error multiple t), without "
                 "modulus switch; mod_switch = mod_switch_to_next_inplace of a fresh ciphertext "
                 "from L to L − 1 (drop q_L, correct by a multiple of t), on copies made before "
                 "each timed batch, untimed"
               : "HPS tensor product + relinearisation";
  if (config.galois_element != 0) {
    notes += "; rotate = apply_galois by X -> X^" + std::to_string(config.galois_element) +
             " (automorphism + key switch)";
  } else if (config.slot_degree != 0) {
    notes += "; rotate = the k slots rotated as one row by " + std::to_string(config.rotate_step) +
             " (SlotArray::rotate, HElib's EncryptedArray::rotate: an automorphism + key switch "
             "per group of slots, each group but a whole one times its 0/1 mask, summed)";
  } else {
    notes += "; rotate = rotate_rows by " + std::to_string(config.rotate_step) +
             " (automorphism + key switch)";
  }
  notes += "; decrypt = c_0 + c_1·s and ";
  notes += bgv ? "its exact reduction mod t (HPS conversion)" : "the rounding by t/Q";
  notes +=
      " into a new plaintext, without decode; decode into a preallocated vector (decrypt + "
      "decode is the sum of the two rows).\n";
  for (const SkippedOp& s : config.skipped) {
    notes += "\nNot run: " + std::string(to_string(s.op)) + " (" + s.why + ").\n";
  }
  for (const IntegerMeasurement& im : ms) {
    if (!im.noise_budget_fresh || !im.noise_budget_after) continue;
    notes += std::string(bgv ? "\nNoise budget: " : "\nInvariant noise budget: ") +
             std::to_string(*im.noise_budget_fresh) + " bits fresh, " +
             std::to_string(*im.noise_budget_after) + " bits after multiply_relin";
    if (im.noise_budget_after_switch) {
      notes += ", " + std::to_string(*im.noise_budget_after_switch) +
               " bits after a following mod_switch to L − 1";
    }
    notes += bgv ? " (log2(Q_l) − 1 − log2‖[c_0 + c_1·s]_{Q_l}‖_∞, with the secret key, "
                   "untimed).\n"
                 : " (SEAL's definition, with the secret key, untimed).\n";
  }
  return notes;
}

}  // namespace polyhe::cli
