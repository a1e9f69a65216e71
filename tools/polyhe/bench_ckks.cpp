#include "bench_ckks.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "polyhe/ckks/bootstrap.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/ckks/encoder.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/rlwe/batch.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rns/basis.hpp"
#include "random.hpp"
#include "scheme_bench.hpp"
#include "sysinfo.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

using Complex = std::complex<double>;

constexpr int kMinLogN = 2;
constexpr int kMaxLogN = 17;
constexpr int kMinScaleBits = 10;
constexpr int kMaxScaleBits = 60;
/// Below this many bits of precision the product is noise: the scale does not fit the primes.
constexpr double kPrecisionWarning = 4;

std::vector<CkksOp> parse_ops(const std::string& spec, bool on_device) {
  if (spec.empty()) {
    std::vector<CkksOp> all;
    for (const CkksOp op : kAllCkksOps) {
      if (is_default_op(op, on_device)) all.push_back(op);
    }
    return all;
  }
  std::vector<bool> wanted(kAllCkksOps.size(), false);
  for (const std::string& name : split_list(spec, "--ops")) {
    const auto it = std::find_if(kAllCkksOps.begin(), kAllCkksOps.end(),
                                 [&](CkksOp op) { return to_string(op) == name; });
    if (it == kAllCkksOps.end()) {
      throw UsageError("--ops: unknown op '" + name +
                       "'; use encode, encrypt, add, multiply_relin, rescale, rotate, "
                       "rotate_many, decrypt, decode, batch_add, batch_multiply, bootstrap (a "
                       "comma list)");
    }
    if (is_batch_op(*it) && !on_device) {
      throw UsageError("--ops " + name +
                       ": the batch ops move host ciphertexts through a device; add --backend "
                       "cuda (or cuda-emulated)");
    }
    wanted[static_cast<std::size_t>(it - kAllCkksOps.begin())] = true;
  }
  std::vector<CkksOp> ops;
  for (std::size_t i = 0; i < kAllCkksOps.size(); ++i) {
    if (wanted[i]) ops.push_back(kAllCkksOps[i]);
  }
  return ops;
}

/// n values uniform in the complex unit disc (radius √u, so the density is uniform in area).
std::vector<Complex> unit_disc(InputRng& rng, std::size_t n) {
  auto uniform01 = [&] { return static_cast<double>(rng.next() >> 11) * 0x1p-53; };
  std::vector<Complex> v(n);
  for (Complex& z : v) z = std::polar(std::sqrt(uniform01()), 2 * std::numbers::pi * uniform01());
  return v;
}

}  // namespace

std::string_view to_string(CkksOp op) {
  switch (op) {
    case CkksOp::encode: return "encode";
    case CkksOp::encrypt: return "encrypt";
    case CkksOp::add: return "add";
    case CkksOp::multiply_relin: return "multiply_relin";
    case CkksOp::rescale: return "rescale";
    case CkksOp::rotate: return "rotate";
    case CkksOp::rotate_many: return "rotate_many";
    case CkksOp::decrypt: return "decrypt";
    case CkksOp::decode: return "decode";
    case CkksOp::batch_add: return "batch_add";
    case CkksOp::batch_multiply: return "batch_multiply";
    case CkksOp::bootstrap: return "bootstrap";
  }
  return "?";
}

BenchCkksConfig make_bench_ckks_config(const BenchCkksArgs& args) {
  BenchCkksConfig c;
  if (args.log_n < kMinLogN || args.log_n > kMaxLogN) {
    throw UsageError("--log-n: " + std::to_string(args.log_n) + " is outside " +
                     range_text(kMinLogN, kMaxLogN) +
                     " (below 10 the security table has no entry: add --security none)");
  }
  c.literal.log_n = args.log_n;
  if (args.primes.empty()) {
    throw UsageError("--primes: empty; give the bit sizes of the primes, e.g. 60,40,40,60");
  }
  std::vector<int> primes =
      parse_int_sequence(args.primes, "--primes", 2, RnsBasis::kMaxBits, rlwe::kMaxPrimes);
  if (args.special.empty()) {
    if (primes.size() < 3) {
      throw UsageError("--primes " + args.primes + ": " + std::to_string(primes.size()) +
                       (primes.size() == 1 ? " prime" : " primes") +
                       " without --special; at least 3 are needed (the last one is the special "
                       "prime of key switching, and CKKS needs two ciphertext primes to rescale)");
    }
    c.literal.p_bits = {primes.back()};
    primes.pop_back();
  } else {
    c.literal.p_bits =
        parse_int_sequence(args.special, "--special", 2, RnsBasis::kMaxBits, rlwe::kMaxPrimes);
    if (primes.size() < 2) {
      throw UsageError("--primes " + args.primes +
                       ": 1 ciphertext prime; CKKS needs at least 2 (rescale divides by the last)");
    }
  }
  c.literal.q_bits = primes;
  if (args.scale_bits < kMinScaleBits || args.scale_bits > kMaxScaleBits) {
    throw UsageError("--scale-bits: " + std::to_string(args.scale_bits) + " is outside " +
                     range_text(kMinScaleBits, kMaxScaleBits));
  }
  c.scale_bits = args.scale_bits;
  const auto q_count = static_cast<int>(primes.size());
  if (args.dnum < 0 || args.dnum > q_count) {
    throw UsageError("--dnum: " + std::to_string(args.dnum) + " is outside " +
                     range_text(0, q_count) +
                     " (0: the library default; at most L + 1, the number of ciphertext primes)");
  }
  c.literal.dnum = static_cast<std::size_t>(args.dnum);
  c.literal.security = parse_security(args.security);
  c.ops = parse_ops(args.ops, args.backend != "cpu");
  const std::int64_t half = std::int64_t{1} << (args.log_n - 1);  // the number of slots
  if (args.rotate_step == 0 || args.rotate_step <= -half || args.rotate_step >= half) {
    throw UsageError("--rotate-step: " + std::to_string(args.rotate_step) +
                     " is not a rotation of the " + std::to_string(half) +
                     " slots; use 0 < |step| < N/2 = " + std::to_string(half));
  }
  c.rotate_step = args.rotate_step;
  c.threads = checked_threads(args.threads);
  c.timing = timing_for(args.min_time_s);
  c.literal.hamming_weight = args.hamming_weight;
  const std::vector<int> levels =
      parse_int_sequence(args.bootstrap_levels, "--bootstrap-levels", 1, args.log_n - 1, 2);
  if (levels.size() != 2) {
    throw UsageError("--bootstrap-levels " + args.bootstrap_levels +
                     ": give the CoeffToSlot and SlotToCoeff levels, e.g. 3,3");
  }
  c.coeff_to_slot_levels = static_cast<std::size_t>(levels[0]);
  c.slot_to_coeff_levels = static_cast<std::size_t>(levels[1]);
  if (args.eval_mod != "chebyshev" && args.eval_mod != "double_angle") {
    throw UsageError("--eval-mod " + args.eval_mod + ": use chebyshev or double_angle");
  }
  c.double_angle = args.eval_mod == "double_angle";
  c.eval_mod_baby_steps = args.eval_mod_baby_steps;
  c.encapsulation_weight = args.encapsulation_weight;
  if (args.message_ratio_bits != 0 &&
      !(args.message_ratio_bits >= 1 && args.message_ratio_bits <= 62)) {
    throw UsageError("--message-ratio " + std::to_string(args.message_ratio_bits) +
                     ": use 0 (no input scaling) or a number of bits in [1, 62]");
  }
  c.message_ratio_bits = args.message_ratio_bits;
  c.arcsine_degree = args.arcsine_degree;
  c.double_angles = args.double_angles;
  c.sine_degree = args.sine_degree;
  if (args.bootstrap_iterations != 1 && args.bootstrap_iterations != 2) {
    throw UsageError("--bootstrap-iterations " + std::to_string(args.bootstrap_iterations) +
                     ": use 1, or 2 for iterative bootstrapping");
  }
  c.bootstrap_iterations = args.bootstrap_iterations;
  if (args.iteration_precision_bits < 0 || args.iteration_precision_bits > 40) {
    throw UsageError("--iteration-precision " + std::to_string(args.iteration_precision_bits) +
                     ": use 0 (estimated) or a number of bits in [1, 40]");
  }
  c.iteration_precision_bits = args.iteration_precision_bits;
  const bool boots = std::find(c.ops.begin(), c.ops.end(), CkksOp::bootstrap) != c.ops.end();
  if (boots && args.encapsulation_weight == 0 &&
      (args.hamming_weight == 0 || args.hamming_weight > 256)) {
    throw UsageError(
        "--ops bootstrap needs a sparse secret for ModRaise: --encapsulation-weight 32 (an "
        "ephemeral one, the secret dense) or --hamming-weight in [1, 256] (64 keeps ModRaise's "
        "multiple of q_0 within K = 16; it is " +
        std::to_string(args.hamming_weight) + ")");
  }
  c.backend = make_bench_backend(args.backend, args.log_n);
  return c;
}

rlwe::ParametersPtr make_ckks_parameters(const BenchCkksConfig& config) {
  const rlwe::ParametersPtr params = create_parameters(config.literal);
  // The evaluator refuses a product whose scale Δ² reaches Q_L/2; say so before timing anything.
  double log_q = 0;
  for (const std::uint64_t q : params->q_primes()) log_q += std::log2(static_cast<double>(q));
  const bool multiplies =
      std::find(config.ops.begin(), config.ops.end(), CkksOp::multiply_relin) != config.ops.end();
  if (multiplies && 2.0 * config.scale_bits >= log_q - 1) {
    throw UsageError("--scale-bits " + std::to_string(config.scale_bits) +
                     ": multiply_relin needs Δ² = 2^" + std::to_string(2 * config.scale_bits) +
                     " below Q_L/2 = 2^" + fixed(log_q - 1, 1) +
                     "; lower --scale-bits or add ciphertext primes to --primes");
  }
  return params;
}

void run_bench_ckks(const BenchCkksConfig& config, const rlwe::ParametersPtr& params,
                    const std::function<void(const CkksMeasurement&)>& sink,
                    const std::function<void(const std::string&)>& note) {
  const ThreadCountGuard threads(config.threads);
  const auto wants = [&](CkksOp op) {
    return std::find(config.ops.begin(), config.ops.end(), op) != config.ops.end();
  };
  const std::size_t top = params->max_level();
  const double scale = std::ldexp(1.0, config.scale_bits);
  const ckks::ContextPtr ctx = ckks::Context::create(params, scale);
  InputRng rng(os_seed());

  // Keys, untimed: a relinearisation key only for multiply_relin, a Galois key only for rotate;
  // generated on the host, then moved where the ops run (with them, every ciphertext).
  const std::shared_ptr<Device>& device = config.backend.device;
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey host_sk = keygen.secret_key();
  const rlwe::SecretKey sk = host_sk.to_device(device);
  const rlwe::PublicKey pk = placed(keygen.public_key(host_sk), device);
  std::shared_ptr<const rlwe::KeySwitchKey> rlk;
  std::optional<ckks::Bootstrapper> boot;
  std::optional<ckks::EncapsulationKeys> encapsulation;
  if (wants(CkksOp::bootstrap)) {
    ckks::BootstrapConfig bc;
    bc.coeff_to_slot_levels = config.coeff_to_slot_levels;
    bc.slot_to_coeff_levels = config.slot_to_coeff_levels;
    bc.eval_mod = config.double_angle ? ckks::EvalMod::double_angle : ckks::EvalMod::chebyshev;
    bc.eval_mod_baby_steps = config.eval_mod_baby_steps;
    bc.encapsulation_weight = config.encapsulation_weight;
    bc.message_ratio_bits = config.message_ratio_bits;
    bc.arcsine_degree = config.arcsine_degree;
    bc.double_angles = config.double_angles;
    bc.sine_degree = config.sine_degree;
    bc.iterations = config.bootstrap_iterations;
    bc.iteration_precision_bits = config.iteration_precision_bits;
    boot.emplace(*ctx, bc);
    if (boot->encapsulation_parameters()) {
      encapsulation = placed(boot->encapsulation_keys(keygen, host_sk), device);
    }
    if (device) boot = boot->to_device(device);
  }
  if (wants(CkksOp::multiply_relin) || wants(CkksOp::batch_multiply) || wants(CkksOp::bootstrap)) {
    rlk = rlwe::share(placed(keygen.relinearization_key(host_sk), device));
  }
  std::shared_ptr<const rlwe::GaloisKeys> galois;
  std::vector<std::int64_t> hoisted_steps;
  if (wants(CkksOp::rotate_many)) {
    for (std::int64_t s = 1; s <= kHoistedRotations; ++s) hoisted_steps.push_back(s);
  }
  if (wants(CkksOp::rotate) || wants(CkksOp::rotate_many) || boot) {
    std::vector<std::int64_t> steps = hoisted_steps;
    if (wants(CkksOp::rotate)) steps.push_back(config.rotate_step);
    if (boot) {
      for (const std::int64_t s : boot->rotations()) steps.push_back(s);
    }
    galois = rlwe::share(
        placed(keygen.rotation_keys(host_sk, steps, /*conjugation=*/boot.has_value()), device));
  }
  const ckks::Evaluator ev(params, rlk, galois);
  const ckks::Encryptor encryptor = ctx->encryptor(pk);
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  // A call ends when its results exist: the device's work is waited for. On a device, the
  // host's share is timed too (enqueue_median).
  const auto timed = [&](Measurement& m, auto&& call) {
    {
      const ProfiledRegion profiled(config.backend);
      m.stats = measure(
          [&] {
            call();
            config.backend.synchronize();
          },
          config.timing);
    }
    m.enqueue_ns = enqueue_median(config.backend, call, config.timing);
  };

  const std::vector<Complex> x = unit_disc(rng, ctx->slots());
  const std::vector<Complex> y = unit_disc(rng, ctx->slots());
  const ckks::Plaintext pt_x = ctx->encode(x, top, scale);
  const ckks::Plaintext pt_y = ctx->encode(y, top, scale);
  const ckks::Ciphertext ct_x = encryptor.encrypt(pt_x);
  const ckks::Ciphertext ct_y = encryptor.encrypt(pt_y);
  // The plaintext decode reads where decryption leaves it.
  const ckks::Plaintext pt_decoded = pt_x.to_device(device);

  Measurement base;
  base.backend = config.backend.name;
  base.device = device ? device->name() : cpu_model();
  base.log_n = params->log_n();
  base.bits = config.scale_bits;
  base.limbs = top + 1;
  base.variant = "hybrid-dnum" + std::to_string(params->dnum());
  base.path = device ? "device" : std::string(to_string(cpu_path()));
  base.threads = config.threads;

  for (const CkksOp op : config.ops) {
    CkksMeasurement cm;
    cm.m = base;
    cm.level = top;
    cm.m.op = std::string(to_string(op));
    switch (op) {
      case CkksOp::encode: {
        RnsPoly out(params->ring(), top + 1, PolyForm::kCoefficient, device);
        timed(cm.m, [&] { ctx->encoder().encode(x, scale, out); });
        break;
      }
      case CkksOp::encrypt: timed(cm.m, [&] { (void)encryptor.encrypt(pt_x); }); break;
      case CkksOp::add: {
        ckks::Ciphertext acc = ct_x;
        timed(cm.m, [&] { ev.add_inplace(acc, ct_y); });
        break;
      }
      case CkksOp::multiply_relin: {
        timed(cm.m, [&] { (void)ev.multiply_relin(ct_x, ct_y); });
        // The precision of one multiplication, as defined in bench_ckks.hpp.
        const auto z = ctx->decode(decryptor.decrypt(ev.rescale(ev.multiply_relin(ct_x, ct_y))));
        double max_error = 0;
        for (std::size_t j = 0; j < x.size(); ++j) {
          max_error = std::max(max_error, std::abs(z[j] - x[j] * y[j]));
        }
        // An exact result (or a NaN) would not fit JSON: floor the error at 2^-64.
        if (!(max_error >= 0x1p-64)) max_error = std::isnan(max_error) ? 1e300 : 0x1p-64;
        cm.precision_bits = -std::log2(max_error);
        if (*cm.precision_bits < kPrecisionWarning) {
          note("multiply_relin keeps only " + fixed(*cm.precision_bits, 1) +
               " bits of precision: Δ² = 2^" + std::to_string(2 * config.scale_bits) +
               " must fit below Q_L/2 and q_L should be close to Δ = 2^" +
               std::to_string(config.scale_bits) + " (see --scale-bits and --primes)");
        }
        break;
      }
      case CkksOp::rescale: timed(cm.m, [&] { (void)ev.rescale(ct_x); }); break;
      case CkksOp::rotate: timed(cm.m, [&] { (void)ev.rotate(ct_x, config.rotate_step); }); break;
      case CkksOp::rotate_many:
        timed(cm.m, [&] { (void)ev.rotate_many(ct_x, hoisted_steps); });
        break;
      case CkksOp::decrypt: timed(cm.m, [&] { (void)decryptor.decrypt(ct_x); }); break;
      case CkksOp::decode: timed(cm.m, [&] { (void)ctx->decode(pt_decoded); }); break;
      case CkksOp::bootstrap: {
        // A level-0 ciphertext of x at Δ, refreshed; precision against x, all N/2 slots.
        const ckks::Ciphertext low = encryptor.encrypt(ctx->encode(x, 0, scale));
        const auto refresh = [&] {
          return encapsulation ? boot->bootstrap(ev, low, *encapsulation)
                               : boot->bootstrap(ev, low);
        };
        timed(cm.m, [&] { (void)refresh(); });
        cm.level = 0;
        const ckks::Ciphertext fresh = refresh();
        cm.levels_after = fresh.level();
        cm.encapsulation_weight = config.encapsulation_weight;
        cm.input_scaling_bits = boot->input_scaling_bits();
        cm.arcsine_degree = config.arcsine_degree;
        cm.double_angles = config.double_angle ? config.double_angles : 0;
        cm.sine_degree = boot->sine_degree();
        cm.iterations = config.bootstrap_iterations;
        cm.iteration_precision_bits = boot->iteration_precision_bits();
        cm.rotation_keys = boot->rotations().size();
        const auto worst_bits = [&](const ckks::Ciphertext& c, const auto& want) {
          const auto z = ctx->decode(decryptor.decrypt(c));
          double e = 0;
          for (std::size_t j = 0; j < want.size(); ++j) e = std::max(e, std::abs(z[j] - want[j]));
          if (!(e >= 0x1p-64)) e = std::isnan(e) ? 1e300 : 0x1p-64;
          return -std::log2(e);
        };
        cm.input_precision_bits = worst_bits(low, x);
        cm.precision_bits = worst_bits(fresh, x);
        cm.refresh_precision_bits = worst_bits(fresh, ctx->decode(decryptor.decrypt(low)));
        break;
      }
      case CkksOp::batch_add:
      case CkksOp::batch_multiply: {
        // kBatchItems host ciphertexts through the device, one operand resident there; per item.
        const std::vector<ckks::Ciphertext> items(kBatchItems, ct_x.to_host());
        const bool add = op == CkksOp::batch_add;
        const std::function<ckks::Ciphertext(const ckks::Ciphertext&)> work =
            [&](const ckks::Ciphertext& c) {
              return add ? ev.add(c, ct_y) : ev.rescale(ev.multiply_relin(c, ct_y));
            };
        rlwe::DeviceBatch batch(device);  // its slots and staging are reused by every call
        cm.m.stats = measure([&] { (void)batch.map(items, work); }, config.timing);  // it waits
        for (double* t : {&cm.m.stats.median_ns, &cm.m.stats.p10_ns, &cm.m.stats.p90_ns}) {
          *t /= static_cast<double>(kBatchItems);
        }
        const TransferRates rates = measure_transfer_rates(*device);
        const double in_bytes = 2.0 * static_cast<double>((top + 1) * params->n() * 8);
        const double out_bytes =
            add ? in_bytes : in_bytes * static_cast<double>(top) / static_cast<double>(top + 1);
        cm.floor_ns =
            1e9 * std::max(in_bytes / rates.h2d_bytes_per_s, out_bytes / rates.d2h_bytes_per_s);
        cm.h2d_bytes_per_s = rates.h2d_bytes_per_s;
        cm.d2h_bytes_per_s = rates.d2h_bytes_per_s;
        break;
      }
    }
    sink(cm);
  }
}

std::string ckks_json(const rlwe::Parameters& params, int scale_bits, const CkksMeasurement& cm) {
  // Benchmark JSON fields (docs/design.md) from measurement_json, in its order, then the CKKS ones.
  auto j = nlohmann::ordered_json::parse(measurement_json(cm.m));
  j["scheme"] = "ckks";
  j["security"] = security_name(params.security());
  j["primes"] = bit_sizes(params.q_primes());
  j["special"] = bit_sizes(params.p_primes());
  j["dnum"] = params.dnum();
  j["scale_bits"] = scale_bits;
  j["log_qp"] = params.log_qp();
  j["level"] = cm.level;
  if (cm.m.op == to_string(CkksOp::rotate_many)) j["rotations"] = kHoistedRotations;
  if (cm.levels_after) {
    j["levels_after"] = *cm.levels_after;
    j["slots"] = params.n() / 2;
    j["hamming_weight"] = params.hamming_weight();
    j["encapsulation_weight"] = cm.encapsulation_weight;
    j["input_scaling_bits"] = cm.input_scaling_bits;
    j["arcsine_degree"] = cm.arcsine_degree;
    j["double_angles"] = cm.double_angles;
    j["sine_degree"] = cm.sine_degree;
    j["iterations"] = cm.iterations;
    j["iteration_precision_bits"] = cm.iteration_precision_bits;
    j["rotation_keys"] = cm.rotation_keys;
    if (cm.input_precision_bits)
      j["input_precision_bits"] = std::round(*cm.input_precision_bits * 100) / 100;
    if (cm.refresh_precision_bits)
      j["refresh_precision_bits"] = std::round(*cm.refresh_precision_bits * 100) / 100;
  }
  if (cm.precision_bits) j["precision_bits"] = std::round(*cm.precision_bits * 100) / 100;
  if (cm.floor_ns) {
    j["items"] = kBatchItems;
    j["floor_ns"] = std::round(*cm.floor_ns * 10) / 10;
    j["ratio"] = std::round(cm.m.stats.median_ns / *cm.floor_ns * 1000) / 1000;
    j["h2d_gbps"] = std::round(cm.h2d_bytes_per_s / 1e7) / 100;
    j["d2h_gbps"] = std::round(cm.d2h_bytes_per_s / 1e7) / 100;
  }
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string ckks_parameters_line(const rlwe::Parameters& params, int scale_bits) {
  std::ostringstream s;
  s << "N = 2^" << params.log_n() << ", Q = " << join(bit_sizes(params.q_primes()))
    << " bits (L = " << params.max_level() << "), P = " << join(bit_sizes(params.p_primes()))
    << " bits, log2(QP) = " << params.log_qp() << ", dnum = " << params.dnum() << ", Δ = 2^"
    << scale_bits << ", security " << security_text(params.security());
  return s.str();
}

std::string ckks_table_notes(const std::vector<CkksMeasurement>& ms) {
  std::string notes =
      "Per call, key generation excluded, every op at the top level L on random slots in the "
      "complex unit disc: encode into a preallocated polynomial; encrypt with the public key; "
      "add in place; multiply_relin = tensor product + relinearisation, without rescale; "
      "rescale writes a new ciphertext (the input is kept); rotate = automorphism + key switch; "
      "rotate_many (only when named) = " +
      std::to_string(kHoistedRotations) +
      " rotations (steps 1, 2, ...) in one hoisted call; decrypt and decode allocate their "
      "results.\n";
  for (const CkksMeasurement& cm : ms) {
    if (!cm.precision_bits) continue;
    if (cm.levels_after) {
      notes += "\nbootstrap (only when named): a level-0 ciphertext refreshed to level " +
               std::to_string(*cm.levels_after) + "; precision " + fixed(*cm.precision_bits, 2) +
               " bits (−log2 of the largest slot error of the refreshed ciphertext against x; "
               "the level-0 input itself: " +
               fixed(cm.input_precision_bits.value_or(0), 2) +
               " bits; against the input's own decryption, the bootstrap's error alone: " +
               fixed(cm.refresh_precision_bits.value_or(0), 2) + " bits" +
               (cm.iterations == 2
                    ? "; two iterations, p = " + std::to_string(cm.iteration_precision_bits)
                    : std::string()) +
               ").\n";
      continue;
    }
    notes += "\nPrecision of multiply_relin: " + fixed(*cm.precision_bits, 2) +
             " bits (−log2 of the largest slot error of decode(decrypt(rescale(multiply_relin(x, "
             "y)))) against x⊙y in double).\n";
  }
  return notes;
}

}  // namespace polyhe::cli
