#include "bench_bfv.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "polyhe/bgv/encoder.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rns/basis.hpp"
#include "random.hpp"
#include "sysinfo.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

constexpr int kMinLogN = 2;
constexpr int kMaxLogN = 17;

std::string range_text(long long lo, long long hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

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

rlwe::SecurityLevel parse_security(const std::string& s) {
  if (s == "128") return rlwe::SecurityLevel::bits128;
  if (s == "192") return rlwe::SecurityLevel::bits192;
  if (s == "256") return rlwe::SecurityLevel::bits256;
  if (s == "none") return rlwe::SecurityLevel::insecure_none;
  throw UsageError("--security: '" + s + "' is not 128, 192, 256 or none");
}

std::string security_name(rlwe::SecurityLevel s) {
  switch (s) {
    case rlwe::SecurityLevel::bits128: return "128";
    case rlwe::SecurityLevel::bits192: return "192";
    case rlwe::SecurityLevel::bits256: return "256";
    case rlwe::SecurityLevel::insecure_none: return "none";
  }
  return "?";
}

std::vector<int> bit_sizes(const std::vector<std::uint64_t>& primes) {
  std::vector<int> bits;
  bits.reserve(primes.size());
  for (const std::uint64_t q : primes) bits.push_back(static_cast<int>(std::bit_width(q)));
  return bits;
}

std::string join(const std::vector<int>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(values[i]);
  }
  return s;
}

/// Reads --primes and --special into the literal's bit sizes (the last prime is P without
/// --special, as SEAL and TenSEAL read such a list).
void parse_primes(const BenchIntegerArgs& args, rlwe::ParametersLiteral& literal) {
  if (args.primes.empty()) {
    throw UsageError("--primes: empty; give the bit sizes of the primes, e.g. 48,48,49");
  }
  std::vector<int> primes = parse_int_sequence(args.primes, "--primes", 2, RnsBasis::kMaxBits);
  if (args.special.empty()) {
    if (primes.size() < 2) {
      throw UsageError("--primes " + args.primes +
                       ": 1 prime without --special; at least 2 are needed (the last one is the "
                       "special prime of key switching)");
    }
    literal.p_bits = {primes.back()};
    primes.pop_back();
  } else {
    literal.p_bits = parse_int_sequence(args.special, "--special", 2, RnsBasis::kMaxBits);
  }
  literal.q_bits = primes;
}

/// Reads --ops and --rotate-step: rotations need batching, so without it an explicit rotate or
/// --rotate-step is an error and the default op list leaves rotate out (config.skipped).
void parse_rotations(const BenchIntegerArgs& args, IntegerScheme scheme, BenchIntegerConfig& c) {
  c.ops = parse_ops(args.ops, scheme);
  const std::string why_not = "t = " + std::to_string(c.plain_modulus) +
                              " does not batch (batching needs a prime t ≡ 1 mod 2N = " +
                              std::to_string(std::uint64_t{2} << (args.log_n - 1)) + ")";
  if (!c.batching && !args.ops.empty() && contains(c.ops, IntegerOp::rotate)) {
    throw UsageError("--ops " + args.ops + ": rotate needs batching; " + why_not);
  }
  if (!c.batching && args.rotate_step) {
    throw UsageError("--rotate-step " + std::to_string(*args.rotate_step) +
                     ": rotations need batching; " + why_not);
  }
  if (!c.batching && contains(c.ops, IntegerOp::rotate)) {
    std::erase(c.ops, IntegerOp::rotate);
    c.skipped.push_back(IntegerOp::rotate);
  }
  c.rotate_step = args.rotate_step.value_or(1);
  const std::int64_t row = std::int64_t{1} << (args.log_n - 1);  // columns of the 2 × N/2 slots
  if (c.rotate_step == 0 || c.rotate_step <= -row || c.rotate_step >= row) {
    throw UsageError("--rotate-step: " + std::to_string(c.rotate_step) +
                     " is not a rotation of the rows of " + std::to_string(row) +
                     " slots; use 0 < |step| < N/2 = " + std::to_string(row));
  }
}

/// Restores the default pool's size when the benchmark ends (in-process callers share it).
class ThreadCountGuard {
 public:
  explicit ThreadCountGuard(unsigned threads) : saved_(thread_count()) {
    if (threads != saved_) set_thread_count(threads);
  }
  ~ThreadCountGuard() {
    if (thread_count() != saved_) set_thread_count(saved_);
  }
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;

 private:
  unsigned saved_;
};

/// The context's encoder (batch or coefficient) behind one interface: N values ↔ N coefficients.
class ValueEncoder {
 public:
  explicit ValueEncoder(const bgv::Context& ctx)
      : batch_(ctx.batching() ? &ctx.batch_encoder() : nullptr),
        coeff_(&ctx.coefficient_encoder()) {}
  void encode(std::span<const std::uint64_t> values, std::span<std::uint64_t> out) const {
    if (batch_ != nullptr) {
      batch_->encode(values, out);
    } else {
      coeff_->encode(values, out);
    }
  }
  void decode(std::span<const std::uint64_t> coeffs, std::span<std::uint64_t> out) const {
    if (batch_ != nullptr) {
      batch_->decode(coeffs, out);
    } else {
      coeff_->decode(coeffs, out);
    }
  }

 private:
  const bgv::BatchEncoder* batch_;
  const bgv::CoefficientEncoder* coeff_;
};

/// The noise budgets of one multiplication, and a note when it fails (see bench_bfv.hpp).
void measure_noise(const bgv::Context& ctx, const bgv::BfvEvaluator& ev, const ValueEncoder& enc,
                   const rlwe::SecretKey& sk, const bgv::Ciphertext& ct_x,
                   const bgv::Ciphertext& ct_y, std::span<const std::uint64_t> x,
                   std::span<const std::uint64_t> y, IntegerMeasurement& im,
                   const std::function<void(const std::string&)>& note) {
  const bgv::Ciphertext product = ev.multiply_relin(ct_x, ct_y);
  im.noise_budget_fresh = bgv::invariant_noise_budget(ctx, ct_x, sk);
  im.noise_budget_after = bgv::invariant_noise_budget(ctx, product, sk);
  if (*im.noise_budget_after == 0) {
    note("multiply_relin exhausted the invariant noise budget (" +
         std::to_string(*im.noise_budget_fresh) +
         " bits fresh): its decryption is wrong; add ciphertext primes or lower --plain-modulus");
    return;
  }
  if (!ctx.batching()) return;  // the negacyclic product mod t would cost O(N²): not checked
  const bgv::Plaintext z = bgv::bfv_decrypt(ctx, product, sk);
  std::vector<std::uint64_t> slots(ctx.n());
  enc.decode(z.coeffs, slots);
  const std::uint64_t t = ctx.t().value();
  for (std::size_t j = 0; j < slots.size(); ++j) {
    if (slots[j] != static_cast<std::uint64_t>(static_cast<unsigned __int128>(x[j]) * y[j] % t)) {
      note("multiply_relin decrypts to a wrong product at slot " + std::to_string(j) +
           " although its noise budget is " + std::to_string(*im.noise_budget_after) +
           " bits: a library bug, please report it with this command line");
      return;
    }
  }
}

}  // namespace

std::string_view to_string(IntegerScheme scheme) {
  switch (scheme) {
    case IntegerScheme::bfv: return "bfv";
  }
  return "?";
}

std::span<const IntegerOp> scheme_ops(IntegerScheme scheme) {
  switch (scheme) {
    case IntegerScheme::bfv: return kBfvOps;
  }
  return {};
}

std::string_view to_string(IntegerOp op) {
  switch (op) {
    case IntegerOp::encode: return "encode";
    case IntegerOp::encrypt: return "encrypt";
    case IntegerOp::add: return "add";
    case IntegerOp::multiply_relin: return "multiply_relin";
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
  c.batching = bgv::supports_batching(args.plain_modulus, std::size_t{1} << args.log_n);
  parse_rotations(args, scheme, c);
  if (args.threads < 1 || args.threads > kMaxThreads) {
    throw UsageError("--threads: " + std::to_string(args.threads) + " is outside " +
                     range_text(1, kMaxThreads));
  }
  c.threads = args.threads;
  if (!(args.min_time_s > 0 && args.min_time_s <= 600)) {
    throw UsageError("--min-time: " + fixed(args.min_time_s, 3) + " seconds is outside (0, 600]");
  }
  c.timing.min_time_s = args.min_time_s;
  c.timing.warmup_s = std::min(c.timing.warmup_s, args.min_time_s / 4);
  return c;
}

bgv::ContextPtr make_bfv_context(const BenchIntegerConfig& config) {
  rlwe::ParametersPtr params;
  try {
    params = rlwe::Parameters::create(config.literal);
  } catch (const InsecureParameters& e) {
    throw InsecureParameters(std::string(e.what()) + " (on this command line: --security none)");
  }
  return bgv::Context::create(params, config.plain_modulus);
}

void run_bench_bfv(const BenchIntegerConfig& config, const bgv::ContextPtr& ctx,
                   const std::function<void(const IntegerMeasurement&)>& sink,
                   const std::function<void(const std::string&)>& note) {
  const ThreadCountGuard threads(config.threads);
  const rlwe::ParametersPtr& params = ctx->params();
  const std::size_t top = params->max_level();
  const std::size_t n = ctx->n();
  const ValueEncoder encoder(*ctx);
  InputRng rng(os_seed());

  // Keys, untimed: a relinearisation key only for multiply_relin, a Galois key only for rotate.
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  std::optional<rlwe::KeySwitchKey> rlk;
  if (contains(config.ops, IntegerOp::multiply_relin)) rlk = keygen.relinearization_key(sk);
  std::optional<rlwe::GaloisKeys> galois;
  if (contains(config.ops, IntegerOp::rotate)) {
    const std::int64_t steps[] = {config.rotate_step};
    galois = keygen.rotation_keys(sk, steps);
  }
  const bgv::BfvEvaluator ev(ctx, rlk ? &*rlk : nullptr, galois ? &*galois : nullptr);
  rlwe::Encryptor encryptor(pk);

  std::vector<std::uint64_t> x(n), y(n);
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = rng.uniform(0, config.plain_modulus - 1);
    y[j] = rng.uniform(0, config.plain_modulus - 1);
  }
  bgv::Plaintext pt_x{std::vector<std::uint64_t>(n)}, pt_y{std::vector<std::uint64_t>(n)};
  encoder.encode(x, pt_x.coeffs);
  encoder.encode(y, pt_y.coeffs);
  const bgv::Ciphertext ct_x = bgv::bfv_encrypt(*ctx, encryptor, pt_x);
  const bgv::Ciphertext ct_y = bgv::bfv_encrypt(*ctx, encryptor, pt_y);

  Measurement base;
  base.device = cpu_model();
  base.log_n = params->log_n();
  base.bits = ctx->t().bits();
  base.limbs = top + 1;
  base.variant = "hybrid-dnum" + std::to_string(params->dnum());
  base.path = std::string(to_string(cpu_path()));
  base.threads = config.threads;

  for (const IntegerOp op : config.ops) {
    IntegerMeasurement im{base, top, std::nullopt, std::nullopt};
    im.m.op = std::string(to_string(op));
    switch (op) {
      case IntegerOp::encode: {
        std::vector<std::uint64_t> out(n);
        im.m.stats = measure([&] { encoder.encode(x, out); }, config.timing);
        break;
      }
      case IntegerOp::encrypt:
        im.m.stats = measure([&] { (void)bgv::bfv_encrypt(*ctx, encryptor, pt_x); }, config.timing);
        break;
      case IntegerOp::add: {
        bgv::Ciphertext acc = ct_x;
        im.m.stats = measure([&] { rlwe::add_inplace(acc, ct_y); }, config.timing);
        break;
      }
      case IntegerOp::multiply_relin:
        im.m.stats = measure([&] { (void)ev.multiply_relin(ct_x, ct_y); }, config.timing);
        measure_noise(*ctx, ev, encoder, sk, ct_x, ct_y, x, y, im, note);
        break;
      case IntegerOp::rotate:
        im.m.stats =
            measure([&] { (void)ev.rotate_rows(ct_x, config.rotate_step); }, config.timing);
        break;
      case IntegerOp::decrypt:
        im.m.stats = measure([&] { (void)bgv::bfv_decrypt(*ctx, ct_x, sk); }, config.timing);
        break;
      case IntegerOp::decode: {
        std::vector<std::uint64_t> out(n);
        im.m.stats = measure([&] { encoder.decode(pt_x.coeffs, out); }, config.timing);
        break;
      }
    }
    sink(im);
  }
}

std::string integer_json(const BenchIntegerConfig& config, const rlwe::Parameters& params,
                         const IntegerMeasurement& im) {
  // DESIGN.md's fields from measurement_json, in its order, then the scheme's.
  auto j = nlohmann::ordered_json::parse(measurement_json(im.m));
  j["scheme"] = to_string(config.scheme);
  j["security"] = security_name(params.security());
  j["primes"] = bit_sizes(params.q_primes());
  j["special"] = bit_sizes(params.p_primes());
  j["dnum"] = params.dnum();
  j["plain_modulus"] = config.plain_modulus;
  j["encoder"] = config.batching ? "batch" : "coefficient";
  j["log_qp"] = params.log_qp();
  j["level"] = im.level;
  if (im.m.op == to_string(IntegerOp::rotate)) j["rotate_step"] = config.rotate_step;
  if (im.noise_budget_fresh) j["noise_budget_fresh"] = *im.noise_budget_fresh;
  if (im.noise_budget_after) j["noise_budget_after"] = *im.noise_budget_after;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string integer_parameters_line(const BenchIntegerConfig& config,
                                    const rlwe::Parameters& params) {
  std::string scheme(to_string(config.scheme));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  std::ostringstream s;
  s << scheme << ": N = 2^" << params.log_n() << ", Q = " << join(bit_sizes(params.q_primes()))
    << " bits (L = " << params.max_level() << "), P = " << join(bit_sizes(params.p_primes()))
    << " bits, log2(QP) = " << params.log_qp() << ", dnum = " << params.dnum()
    << ", t = " << config.plain_modulus << " (" << std::bit_width(config.plain_modulus)
    << " bits, ";
  if (config.batching) {
    s << "batching: 2 × " << params.n() / 2 << " slots";
  } else {
    s << "no batching: the coefficient encoder";
  }
  s << "), security "
    << (params.security() == rlwe::SecurityLevel::insecure_none
            ? std::string("none (insecure, by request)")
            : security_name(params.security()) + "-bit");
  return s.str();
}

std::string integer_table_header() {
  return "| op | level | median ms | p10 ms | p90 ms | reps |\n"
         "|---|---:|---:|---:|---:|---:|\n";
}

std::string integer_table_row(const IntegerMeasurement& im) {
  const TimingStats& s = im.m.stats;
  return "| " + im.m.op + " | " + std::to_string(im.level) + " | " + fixed(s.median_ns / 1e6, 3) +
         " | " + fixed(s.p10_ns / 1e6, 3) + " | " + fixed(s.p90_ns / 1e6, 3) + " | " +
         std::to_string(s.reps) + " |\n";
}

std::string integer_table_notes(const BenchIntegerConfig& config,
                                const std::vector<IntegerMeasurement>& ms) {
  std::string notes =
      "Per call, key generation excluded, every op at the top level L on N random values in "
      "[0, t): encode into a preallocated coefficient vector; encrypt = public-key encryption "
      "of an encoded plaintext (encryption of zero + round(Q·m/t)); add in place; "
      "multiply_relin = HPS tensor product + relinearisation; rotate = rotate_rows by " +
      std::to_string(config.rotate_step) +
      " (automorphism + key switch); decrypt = c_0 + c_1·s and the rounding by t/Q into a new "
      "plaintext, without decode; decode into a preallocated vector (decrypt + decode is the sum "
      "of the two rows).\n";
  if (!config.skipped.empty()) {
    notes += "\nNot run: " + op_names(config.skipped) +
             " (t = " + std::to_string(config.plain_modulus) +
             " does not batch: rotations need a prime t ≡ 1 mod 2N).\n";
  }
  for (const IntegerMeasurement& im : ms) {
    if (!im.noise_budget_fresh || !im.noise_budget_after) continue;
    notes += "\nInvariant noise budget: " + std::to_string(*im.noise_budget_fresh) +
             " bits fresh, " + std::to_string(*im.noise_budget_after) +
             " bits after multiply_relin (SEAL's definition, with the secret key, untimed).\n";
  }
  return notes;
}

}  // namespace polyhe::cli
