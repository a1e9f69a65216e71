// The batch API (rlwe/batch.hpp): a ring of `depth` slots, each with its device input, staging
// and in-flight result. For item i in slot s: wait for the download of the slot's previous item
// (then its host result is collected and its device result released), load item i into the
// slot's staging, upload it once the compute stream is done with the slot's previous input, run
// op (the compute stream waits for the upload), record that point, download the result parts on
// the download stream. Uploads, compute and downloads of different items thus overlap.
#include "polyhe/rlwe/batch.hpp"

#include <optional>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"
#include "polyhe/ring/pinned.hpp"

namespace polyhe::rlwe {

namespace {

/// The parts of an input and how to make its device twin.
std::vector<const RnsPoly*> parts_of(const Ciphertext& c) {
  std::vector<const RnsPoly*> out;
  for (const RnsPoly& p : c.parts()) out.push_back(&p);
  return out;
}
std::vector<const RnsPoly*> parts_of(const RnsPoly& p) {
  return {&p};
}
std::vector<RnsPoly*> parts_of_mut(Ciphertext& c) {
  std::vector<RnsPoly*> out;
  for (RnsPoly& p : c.parts()) out.push_back(&p);
  return out;
}
std::vector<RnsPoly*> parts_of_mut(RnsPoly& p) {
  return {&p};
}

Ciphertext device_twin(const Ciphertext& x, const std::shared_ptr<Device>& device) {
  Ciphertext d(x.params(), x.level(), x.size(), x.scale(), RnsPoly::kForOverwrite, device);
  d.set_factor(x.factor());
  return d;
}
RnsPoly device_twin(const RnsPoly& x, const std::shared_ptr<Device>& device) {
  return RnsPoly(x.context(), x.limbs(), x.form(), RnsPoly::kForOverwrite, device);
}

/// The item's scale and factor on the slot's device twin (a polynomial has none).
void adopt(Ciphertext& d, const Ciphertext& x) {
  d.set_scale(x.scale());
  d.set_factor(x.factor());
}
void adopt(RnsPoly& /*d*/, const RnsPoly& /*x*/) {}

/// Whether b has a's shape (InvalidParameter naming item i otherwise).
void check_alike(const Ciphertext& a, const Ciphertext& b, std::size_t i) {
  if (b.params() != a.params() || b.level() != a.level() || b.size() != a.size()) {
    throw InvalidParameter("map_on_device: input " + std::to_string(i) +
                           " differs from input 0 in its parameters, level or size; a batch "
                           "holds items of one shape");
  }
  if (b.device()) {
    throw InvalidParameter("map_on_device: input " + std::to_string(i) +
                           " lives on a device; the batch takes host items");
  }
}
void check_alike(const RnsPoly& a, const RnsPoly& b, std::size_t i) {
  if (b.context() != a.context() || b.limbs() != a.limbs() || b.form() != a.form()) {
    throw InvalidParameter("map_on_device: input " + std::to_string(i) +
                           " differs from input 0 in its ring, limbs or form; a batch holds "
                           "items of one shape");
  }
  if (b.on_device()) {
    throw InvalidParameter("map_on_device: input " + std::to_string(i) +
                           " lives on a device; the batch takes host items");
  }
}

std::vector<PinnedWords> staging_for(const std::shared_ptr<Device>& device,
                                     const std::vector<const RnsPoly*>& parts) {
  std::vector<PinnedWords> out;
  out.reserve(parts.size());
  for (const RnsPoly* p : parts) out.emplace_back(device, p->limbs() * p->n());
  return out;
}

template <class In>
struct Slot {
  std::optional<In> input;  // on the device
  std::vector<PinnedWords> in_stage;
  DeviceTicket input_free;           // the compute stream is done with `input`
  std::optional<Ciphertext> result;  // on the device, until downloaded
  std::vector<PinnedWords> out_stage;
  DeviceTicket downloaded;
  std::size_t item = 0;
};

/// The slot's downloaded result as a host ciphertext.
template <class In>
Ciphertext collect(Slot<In>& s) {
  s.downloaded->wait();
  const Ciphertext& d = *s.result;
  Ciphertext h(d.params(), d.level(), d.size(), d.scale(), RnsPoly::kForOverwrite);
  h.set_factor(d.factor());
  for (std::size_t p = 0; p < d.size(); ++p) s.out_stage[p].store(h.parts()[p]);
  s.result.reset();
  s.downloaded.reset();
  return h;
}

/// Slots of one input kind, kept while the inputs' shape stays the same.
template <class In>
struct SlotRing {
  std::vector<Slot<In>> slots;
  std::optional<In> shape;  // a host item of the shape the slots were made for
};

/// Whether two host items share the shape a slot was made for.
bool same_shape(const Ciphertext& a, const Ciphertext& b) {
  return a.params() == b.params() && a.level() == b.level() && a.size() == b.size();
}
bool same_shape(const RnsPoly& a, const RnsPoly& b) {
  return a.context() == b.context() && a.limbs() == b.limbs() && a.form() == b.form();
}

template <class In, class Op>
std::vector<Ciphertext> run(const std::shared_ptr<Device>& device, SlotRing<In>& ring,
                            std::size_t depth, std::span<const In> inputs, const Op& op) {
  for (std::size_t i = 0; i < inputs.size(); ++i) check_alike(inputs[0], inputs[i], i);
  if (inputs.empty()) return {};
  if (!ring.shape || !same_shape(*ring.shape, inputs[0])) {
    ring.slots.clear();
    ring.slots.resize(depth);
    ring.shape.emplace(inputs[0]);
  }
  std::vector<Slot<In>>& slots = ring.slots;
  std::vector<std::optional<Ciphertext>> results(inputs.size());
  try {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      Slot<In>& s = slots[i % depth];
      if (s.result) results[s.item] = collect(s);
      if (!s.input) {
        s.input = device_twin(inputs[i], device);
        s.in_stage = staging_for(device, parts_of(inputs[i]));
        s.input_free = device->record();  // after the input's allocation
      }
      adopt(*s.input, inputs[i]);
      const std::vector<const RnsPoly*> host_parts = parts_of(inputs[i]);
      const std::vector<RnsPoly*> device_parts = parts_of_mut(*s.input);
      for (std::size_t p = 0; p < host_parts.size(); ++p) {
        s.in_stage[p].load(*host_parts[p]);
        s.in_stage[p].upload_to(*device_parts[p], s.input_free);
      }
      Ciphertext r = op(*s.input);
      if (r.device() != device) {
        throw InvalidParameter(
            "map_on_device: the operation returned a ciphertext that is not on the batch's "
            "device");
      }
      s.input_free = device->record();
      const std::vector<const RnsPoly*> result_parts = parts_of(r);
      bool fits = s.out_stage.size() == result_parts.size();
      for (std::size_t p = 0; fits && p < result_parts.size(); ++p) {
        fits = s.out_stage[p].words() == result_parts[p]->limbs() * result_parts[p]->n();
      }
      if (!fits) s.out_stage = staging_for(device, result_parts);
      for (std::size_t p = 0; p < result_parts.size(); ++p) {
        s.downloaded = s.out_stage[p].download_from(*result_parts[p]);
      }
      s.result = std::move(r);
      s.item = i;
    }
    for (std::size_t k = 0; k < depth; ++k) {
      // Drain in item order: slot (n + k) mod depth holds the oldest outstanding item first.
      Slot<In>& s = slots[(inputs.size() + k) % depth];
      if (s.result) results[s.item] = collect(s);
    }
  } catch (...) {
    // The slots may hold half-done work: wait for the device, then start afresh next time.
    try {
      device->synchronize();
    } catch (...) {  // the first error is the one to report
    }
    ring.slots.clear();
    ring.shape.reset();
    throw;
  }
  std::vector<Ciphertext> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace

struct DeviceBatch::Impl {
  std::shared_ptr<Device> device;
  std::size_t depth;
  SlotRing<Ciphertext> ciphertexts;
  SlotRing<RnsPoly> plaintexts;
};

DeviceBatch::DeviceBatch(std::shared_ptr<Device> device, std::size_t depth) {
  if (!device) throw InvalidParameter("map_on_device: no device");
  if (depth < 1 || depth > 16) {
    throw InvalidParameter("map_on_device: depth " + std::to_string(depth) + " is outside [1, 16]");
  }
  impl_ = std::make_unique<Impl>(Impl{std::move(device), depth, {}, {}});
}

DeviceBatch::DeviceBatch(DeviceBatch&&) noexcept = default;
DeviceBatch& DeviceBatch::operator=(DeviceBatch&&) noexcept = default;
DeviceBatch::~DeviceBatch() = default;

const std::shared_ptr<Device>& DeviceBatch::device() const {
  return impl_->device;
}

std::vector<Ciphertext> DeviceBatch::map(std::span<const Ciphertext> inputs,
                                         const std::function<Ciphertext(const Ciphertext&)>& op) {
  return run(impl_->device, impl_->ciphertexts, impl_->depth, inputs, op);
}

std::vector<Ciphertext> DeviceBatch::map(std::span<const RnsPoly> inputs,
                                         const std::function<Ciphertext(const RnsPoly&)>& op) {
  return run(impl_->device, impl_->plaintexts, impl_->depth, inputs, op);
}

std::vector<Ciphertext> map_on_device(const std::shared_ptr<Device>& device,
                                      std::span<const Ciphertext> inputs,
                                      const std::function<Ciphertext(const Ciphertext&)>& op,
                                      std::size_t depth) {
  return DeviceBatch(device, depth).map(inputs, op);
}

std::vector<Ciphertext> map_on_device(const std::shared_ptr<Device>& device,
                                      std::span<const RnsPoly> inputs,
                                      const std::function<Ciphertext(const RnsPoly&)>& op,
                                      std::size_t depth) {
  return DeviceBatch(device, depth).map(inputs, op);
}

}  // namespace polyhe::rlwe
