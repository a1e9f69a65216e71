// The exception classes of the Python module and the translation of polyhe's C++ errors
// (core/error.hpp) into them, message kept. Each class derives from polyhe.Error and from the
// built-in exception a Python user would catch for it: ValueError for bad values (InvalidParameter,
// InsecureParameters, MismatchedContext, CorruptData), RuntimeError for a failed device call.
#include <polyhe/core/error.hpp>

#include <Python.h>

#include "bindings.hpp"

namespace polyhe::python {

namespace {

PyObject* g_error = nullptr;
PyObject* g_invalid = nullptr;
PyObject* g_insecure = nullptr;
PyObject* g_mismatched = nullptr;
PyObject* g_corrupt = nullptr;
PyObject* g_device = nullptr;

PyObject* make_class(nb::module_& m, const char* name, const char* doc, PyObject* second_base) {
  const std::string qualified = std::string("polyhe.") + name;
  PyObject* bases = second_base != nullptr ? PyTuple_Pack(2, g_error, second_base)
                                           : PyTuple_Pack(1, PyExc_Exception);
  if (bases == nullptr) throw nb::python_error();
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  Py_DECREF(bases);
  if (cls == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(cls);  // the module keeps a reference; so does this file (never freed)
  return cls;
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_error = make_class(m, "Error", "The base of every error polyhe raises.", nullptr);
  g_invalid = make_class(m, "InvalidParameter",
                         "A value outside the range an operation serves; the message names the "
                         "value and the rule.",
                         PyExc_ValueError);
  g_insecure = make_class(m, "InsecureParameters",
                          "A parameter set weaker than the security level asked for (opt out by "
                          "name with security='none').",
                          PyExc_ValueError);
  g_mismatched = make_class(m, "MismatchedContext",
                            "Objects of different parameter sets, keys, levels or places combined.",
                            PyExc_ValueError);
  g_corrupt = make_class(m, "CorruptData",
                         "Serialised or pickled data that fails validation (malformed, truncated, "
                         "or written under other parameters).",
                         PyExc_ValueError);
  g_device = make_class(m, "DeviceError", "A failed device (CUDA) call.", PyExc_RuntimeError);

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InvalidParameter& e) {
      PyErr_SetString(g_invalid, e.what());
    } catch (const InsecureParameters& e) {
      PyErr_SetString(g_insecure, e.what());
    } catch (const MismatchedContext& e) {
      PyErr_SetString(g_mismatched, e.what());
    } catch (const CorruptData& e) {
      PyErr_SetString(g_corrupt, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(g_device, e.what());
    } catch (const Error& e) {
      PyErr_SetString(g_error, e.what());
    }
  });
}

}  // namespace polyhe::python
