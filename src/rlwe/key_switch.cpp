#include "polyhe/rlwe/key_switch.hpp"

#include "polyhe/core/error.hpp"

namespace polyhe::rlwe {

void key_switch(const RnsPoly& d, const KeySwitchKey& key, RnsPoly& u0, RnsPoly& u1,
                bool accumulate) {
  if (!key.params) throw InvalidParameter("key_switch: the key has no parameters");
  // Rings, placement and forms are checked by the ring operation.
  polyhe::key_switch(key.params->key_switching(), d, key.parts, u0, u1, accumulate);
}

}  // namespace polyhe::rlwe
