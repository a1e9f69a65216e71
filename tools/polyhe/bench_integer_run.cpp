// The timed part of the BFV and BGV benchmarks (bench_integer.hpp): one runner for both schemes,
// over the one bgv::Evaluator, bgv::Encryptor and bgv::Decryptor, which dispatch on the
// context's scheme (BFV is BGV's scale-invariant mode).
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_integer.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/encoder.hpp"
#include "polyhe/bgv/slot_array.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "random.hpp"
#include "scheme_bench.hpp"
#include "sysinfo.hpp"

namespace polyhe::cli {

namespace {

/// The name of the scheme's noise budget in notes: BFV's is the invariant noise budget.
const char* budget_name(const bgv::Context& ctx) {
  return ctx.scheme() == bgv::Scheme::bfv ? "invariant noise budget" : "noise budget";
}

bool contains(std::span<const IntegerOp> ops, IntegerOp op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// The context's encoder (batch or coefficient) behind one interface: N values ↔ N coefficients.
class ValueEncoder {
 public:
  ValueEncoder(const bgv::Context& ctx, bool slots)
      : batch_(ctx.batching() ? &ctx.batch_encoder() : nullptr),
        slots_(slots ? &ctx.slot_encoder() : nullptr),
        coeff_(&ctx.coefficient_encoder()) {}
  void encode(std::span<const std::uint64_t> values, std::span<std::uint64_t> out) const {
    if (slots_ != nullptr) {
      const auto coords = slots_->encode(values);
      std::copy(coords.begin(), coords.end(), out.begin());
    } else if (batch_ != nullptr) {
      batch_->encode(values, out);
    } else {
      coeff_->encode(values, out);
    }
  }
  void decode(std::span<const std::uint64_t> coeffs, std::span<std::uint64_t> out) const {
    if (slots_ != nullptr) {
      const auto values = slots_->decode(coeffs);
      std::copy(values.begin(), values.end(), out.begin());
    } else if (batch_ != nullptr) {
      batch_->decode(coeffs, out);
    } else {
      coeff_->decode(coeffs, out);
    }
  }

 private:
  const bgv::BatchEncoder* batch_;
  const bgv::SlotEncoder* slots_;  // odd m with slots
  const bgv::CoefficientEncoder* coeff_;
};

/// Everything an op needs, made once, untimed.
struct Inputs {
  const bgv::Context& ctx;
  const bgv::Evaluator& ev;
  const ValueEncoder& encoder;
  const bgv::Decryptor& decryptor;
  const bgv::SlotArray* slot_array;  // odd m with slots (rotate), else null
  std::vector<std::uint64_t> x, y;   // N values in [0, t)
  bgv::Plaintext pt_x;
  bgv::Ciphertext ct_x, ct_y;  // fresh, at level L
};

/// The noise budgets of one multiplication (and, BGV, of the switch after it), and a note when
/// the result does not decrypt (see bench_integer.hpp).
void measure_noise(const Inputs& in, IntegerMeasurement& im,
                   const std::function<void(const std::string&)>& note) {
  bgv::Ciphertext result = in.ev.multiply_relin(in.ct_x, in.ct_y);
  im.noise_budget_fresh = in.decryptor.noise_budget(in.ct_x);
  im.noise_budget_after = in.decryptor.noise_budget(result);
  // The switch after the product: BGV's (the bench's mod_switch op is BGV's only).
  if (in.ctx.scheme() == bgv::Scheme::bgv && result.level() > 0) {
    in.ev.mod_switch_to_next_inplace(result);
    im.noise_budget_after_switch = in.decryptor.noise_budget(result);
  }
  const std::string budget = budget_name(in.ctx);
  if (*im.noise_budget_after == 0 || im.noise_budget_after_switch == 0) {
    note((*im.noise_budget_after == 0 ? "multiply_relin" : "mod_switch after multiply_relin") +
         std::string(" exhausted the ") + budget + " (" + std::to_string(*im.noise_budget_fresh) +
         " bits fresh): its decryption is wrong; add ciphertext primes or lower --plain-modulus");
    return;
  }
  if (!in.ctx.batching()) return;  // the negacyclic product mod t would cost O(N²): not checked
  const bgv::Plaintext z = in.decryptor.decrypt(result);
  std::vector<std::uint64_t> slots(in.ctx.n());
  in.encoder.decode(z.coeffs, slots);
  const std::uint64_t t = in.ctx.t().value();
  for (std::size_t j = 0; j < slots.size(); ++j) {
    const auto expected =
        static_cast<std::uint64_t>(static_cast<unsigned __int128>(in.x[j]) * in.y[j] % t);
    if (slots[j] != expected) {
      note("multiply_relin decrypts to a wrong product at slot " + std::to_string(j) +
           " although its " + budget + " is " +
           std::to_string(im.noise_budget_after_switch.value_or(*im.noise_budget_after)) +
           " bits: a library bug, please report it with this command line");
      return;
    }
  }
}

/// Times one op (see run_bench_integer in bench_integer.hpp for what a call includes).
TimingStats time_op(IntegerOp op, const Inputs& in, const bgv::Encryptor& encryptor,
                    const BenchIntegerConfig& config, std::optional<double>& enqueue_ns) {
  const TimingOptions& timing = config.timing;
  // A call ends when its results exist: the device's work is waited for. On a device, the
  // host's share is timed too (enqueue_median).
  const auto measure = [&](auto&& call, const TimingOptions& options) {
    TimingStats stats;
    {
      const ProfiledRegion profiled(config.backend);
      stats = cli::measure(
          [&] {
            call();
            config.backend.synchronize();
          },
          options);
    }
    enqueue_ns = enqueue_median(config.backend, call, options);
    return stats;
  };
  switch (op) {
    case IntegerOp::encode: {
      std::vector<std::uint64_t> out(in.ctx.n());
      return measure([&] { in.encoder.encode(in.x, out); }, timing);
    }
    case IntegerOp::encrypt: return measure([&] { (void)encryptor.encrypt(in.pt_x); }, timing);
    case IntegerOp::add: {
      bgv::Ciphertext acc = in.ct_x;
      return measure([&] { rlwe::add_inplace(acc, in.ct_y); }, timing);
    }
    case IntegerOp::multiply_relin:
      return measure([&] { (void)in.ev.multiply_relin(in.ct_x, in.ct_y); }, timing);
    case IntegerOp::mod_switch:
      if (in.ctx.scheme() == bgv::Scheme::bgv) {
        std::vector<bgv::Ciphertext> copies;  // consumed by the switches, refilled untimed
        return measure_prepared([&](std::size_t calls) { copies.assign(calls, in.ct_x); },
                                [&](std::size_t i) {
                                  in.ev.mod_switch_to_next_inplace(copies[i]);
                                  config.backend.synchronize();
                                },
                                timing);
      }
      break;  // not an op of this scheme: parse_ops refuses it
    case IntegerOp::rotate:
      if (config.galois_element != 0) {
        return measure([&] { (void)in.ev.apply_galois(in.ct_x, config.galois_element); }, timing);
      }
      if (in.slot_array != nullptr) {
        return measure([&] { (void)in.slot_array->rotate(in.ev, in.ct_x, config.rotate_step); },
                       timing);
      }
      return measure([&] { (void)in.ev.rotate_rows(in.ct_x, config.rotate_step); }, timing);
    case IntegerOp::decrypt: return measure([&] { (void)in.decryptor.decrypt(in.ct_x); }, timing);
    case IntegerOp::decode: {
      std::vector<std::uint64_t> out(in.ctx.n());
      return measure([&] { in.encoder.decode(in.pt_x.coeffs, out); }, timing);
    }
  }
  throw std::logic_error(std::string(to_string(op)) + " is not an op of this scheme");
}

void run_bench(const BenchIntegerConfig& config, const bgv::ContextPtr& ctx,
               const std::function<void(const IntegerMeasurement&)>& sink,
               const std::function<void(const std::string&)>& note) {
  const ThreadCountGuard threads(config.threads);
  const rlwe::ParametersPtr& params = ctx->params();
  const std::size_t top = params->max_level();
  const std::size_t n = ctx->n();
  const ValueEncoder encoder(*ctx, config.slots);
  InputRng rng(os_seed());

  // Keys, untimed: a relinearisation key only for multiply_relin, a Galois key only for rotate;
  // generated on the host, then moved where the ops run (with them, every ciphertext).
  const std::shared_ptr<Device>& device = config.backend.device;
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey host_sk = keygen.secret_key();
  const rlwe::SecretKey sk = host_sk.to_device(device);
  const rlwe::PublicKey pk = placed(keygen.public_key(host_sk), device);
  std::shared_ptr<const rlwe::KeySwitchKey> rlk;
  if (contains(config.ops, IntegerOp::multiply_relin)) {
    rlk = rlwe::share(placed(keygen.relinearization_key(host_sk), device));
  }
  std::shared_ptr<const rlwe::GaloisKeys> galois;
  std::optional<bgv::SlotArray> slot_array;  // odd m with slots: rotate turns the slots
  if (!params->power_of_two() && config.slots) slot_array.emplace(ctx);
  if (contains(config.ops, IntegerOp::rotate)) {
    if (config.galois_element != 0) {
      const std::uint64_t elements[] = {config.galois_element};
      galois = rlwe::share(placed(keygen.galois_keys(host_sk, elements), device));
    } else if (slot_array) {
      galois = rlwe::share(placed(
          keygen.galois_keys(host_sk, slot_array->rotate_elements(config.rotate_step)), device));
    } else {
      const std::int64_t steps[] = {config.rotate_step};
      galois = rlwe::share(placed(keygen.rotation_keys(host_sk, steps), device));
    }
  }
  const bgv::Evaluator ev(ctx, rlk, galois);
  const bgv::Encryptor encryptor = ctx->encryptor(pk);
  const bgv::Decryptor decryptor = ctx->decryptor(sk);

  std::vector<std::uint64_t> x(n), y(n);
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = rng.uniform(0, config.plain_modulus - 1);
    y[j] = rng.uniform(0, config.plain_modulus - 1);
  }
  bgv::Plaintext pt_x{std::vector<std::uint64_t>(n)}, pt_y{std::vector<std::uint64_t>(n)};
  encoder.encode(x, pt_x.coeffs);
  encoder.encode(y, pt_y.coeffs);
  bgv::Ciphertext ct_x = encryptor.encrypt(pt_x);
  bgv::Ciphertext ct_y = encryptor.encrypt(pt_y);
  const Inputs in{*ctx,
                  ev,
                  encoder,
                  decryptor,
                  slot_array ? &*slot_array : nullptr,
                  std::move(x),
                  std::move(y),
                  std::move(pt_x),
                  std::move(ct_x),
                  std::move(ct_y)};

  Measurement base;
  base.backend = config.backend.name;
  base.device = device ? device->name() : cpu_model();
  base.log_n = params->log_n();
  base.bits = ctx->t().bits();
  base.limbs = top + 1;
  base.variant = "hybrid-dnum" + std::to_string(params->dnum());
  base.path = device ? "device" : std::string(to_string(cpu_path()));
  base.threads = config.threads;

  for (const IntegerOp op : config.ops) {
    IntegerMeasurement im;
    im.m = base;
    im.m.op = std::string(to_string(op));
    im.level = top;
    im.m.stats = time_op(op, in, encryptor, config, im.m.enqueue_ns);
    if (op == IntegerOp::multiply_relin) measure_noise(in, im, note);
    sink(im);
  }
}

}  // namespace

void run_bench_integer(const BenchIntegerConfig& config, const bgv::ContextPtr& ctx,
                       const std::function<void(const IntegerMeasurement&)>& sink,
                       const std::function<void(const std::string&)>& note) {
  if (ctx->scheme() != integer_scheme(config.scheme)) {
    throw std::logic_error("run_bench_integer: the context's scheme is not the config's");
  }
  run_bench(config, ctx, sink, note);
}

}  // namespace polyhe::cli
