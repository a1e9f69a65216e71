// CKKS on a device: keys and ciphertexts moved once, then the same evaluator calls run there.
// This example uses the emulated device (the CUDA kernel bodies run on the host), so it runs on
// every machine; with a GPU, make the device with
//   polyhe::cuda::make_device(polyhe::cuda::Context::create(0))   (polyhe/backend/cuda/device.hpp)
// and nothing else changes. It checks its own result and exits non-zero if it is wrong.
#include <polyhe/polyhe.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;
  rlwe::ParametersLiteral lit;
  lit.log_n = 12;
  lit.q_bits = {36, 30};
  lit.p_bits = {36};
  const auto params = rlwe::Parameters::create(lit);  // 128-bit secure at N = 2^12
  const double scale = std::ldexp(1.0, 30);

  ckks::Encoder encoder(params->ring());
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);

  const std::shared_ptr<Device> dev = make_emulated_device();
  const rlwe::PublicKey pk_dev = pk.to_device(dev);  // the encryptor then encrypts on the device
  const rlwe::KeySwitchKey relin_dev = relin.to_device(dev);
  const rlwe::SecretKey sk_dev = sk.to_device(dev);
  rlwe::Encryptor encryptor(pk_dev);
  const ckks::Evaluator eval(params, rlwe::share(relin_dev));

  std::vector<std::complex<double>> x(encoder.slots());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {0.001 * static_cast<double>(i % 500), 0.25};
  const ckks::Ciphertext cx =
      ckks::encrypt(encryptor, ckks::encode(encoder, params, x, scale, params->max_level()));
  const ckks::Ciphertext square = eval.rescale(eval.multiply_relin(cx, cx));  // on the device
  const auto got = ckks::decode(encoder, ckks::decrypt(square, sk_dev));

  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - x[i] * x[i]));
  std::printf("x^2 on %s: largest slot error %.2e\n", dev->name().c_str(), worst);
  return worst < 1e-3 ? 0 : 1;
}
