"""The reference library (reference/, spec/isotrain-spec.md) as a shared object,
loaded with ctypes: the one place where isotrain.torch's numbers come from.

Which file: $ISOTRAIN_LIB if set, else build/shared/<isa>/libisotrain.so of
the checkout this package lives in (`make torch-so` builds it natively and for
aarch64, s390x and ppc64le; <isa> is the machine Python runs on, so under
qemu-user the emulated one). ctypes and not a C++ extension: the same .so
loads in any CPython of its ISA, including the python3-torch of the QEMU
sysroots, with nothing compiled against libtorch.

Every prototype is declared once here (argtypes/restype), so a call converts
its arguments without guessing. Pointers are passed as integers
(tensor.data_ptr()), so a call costs one ctypes transition, never a copy.
"""

import ctypes
import os
import platform

_ISA = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
        "s390x": "s390x", "ppc64le": "ppc64le"}


class LibraryError(RuntimeError):
    """The library could not be loaded or refused its configuration."""


def library_path():
    """$ISOTRAIN_LIB, else build/shared/<isa>/libisotrain.so of this checkout."""
    env = os.environ.get("ISOTRAIN_LIB")
    if env:
        return env
    machine = platform.machine()
    isa = _ISA.get(machine)
    if isa is None:
        raise LibraryError("isotrain.torch: no shared library is built for machine %r (known: %s); "
                           "set ISOTRAIN_LIB to a libisotrain.so built for it"
                           % (machine, ", ".join(sorted(set(_ISA.values())))))
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
    return os.path.join(root, "build", "shared", isa, "libisotrain.so")


P = ctypes.c_void_p     # a tensor's storage: tensor.data_ptr()
Z = ctypes.c_size_t
U = ctypes.c_uint
F = ctypes.c_float
I = ctypes.c_int
U32 = ctypes.c_uint32
U64 = ctypes.c_uint64


class AdamWConsts(ctypes.Structure):
    """it_adamw_consts (isotrain.h, spec §7.2)."""
    _fields_ = [("lr", F), ("beta1", F), ("beta2", F), ("eps", F), ("decay", F),
                ("one_minus_beta1", F), ("one_minus_beta2", F)]


class AdamWClock(ctypes.Structure):
    """it_adamw_clock: the running products beta^t and t (spec §7.2)."""
    _fields_ = [("beta1_pow", F), ("beta2_pow", F), ("t", U32)]


class FpenvReport(ctypes.Structure):
    """it_fpenv_report (spec §2.2)."""
    _fields_ = [("ftz", I), ("daz", I), ("rounding", I)]


# name: (restype, argtypes), in isotrain.h's order
_PROTOTYPES = {
    "it_fpenv_probe": (I, [ctypes.POINTER(FpenvReport)]),
    "it_expf_array": (None, [P, P, Z]),
    "it_logf_array": (None, [P, P, Z]),
    "it_tanhf_array": (None, [P, P, Z]),
    "it_sqrtf_array": (None, [P, P, Z]),
    "it_kernels_select_env": (I, []),
    "it_kernels_name": (ctypes.c_char_p, []),
    "it_dot": (F, [P, P, Z]),
    "it_philox4x32_10": (None, [P, P, P]),
    "it_rng_u32": (U32, [U64, U32, U64]),
    "it_u32_to_symmetric": (F, [U32]),
    "it_u32_below": (U32, [U32, U32]),
    "it_adamw_tick": (None, [ctypes.POINTER(AdamWConsts), ctypes.POINTER(AdamWClock),
                             ctypes.POINTER(F), ctypes.POINTER(F)]),
    "it_host_isa": (ctypes.c_char_p, []),
    "it_host_endianness": (ctypes.c_char_p, []),
    "it_host_os": (ctypes.c_char_p, []),
    "it_host_cpu_model": (None, [ctypes.c_char_p, Z]),
    "it_host_cpu_features": (None, [ctypes.c_char_p, Z]),
    # the batched layers (isotrain.h "batched layers over rows")
    "it_rows_linear_forward": (I, [Z, Z, Z, P, Z, P, P, P, Z, U]),
    "it_rows_linear_backward_input": (I, [Z, Z, Z, P, Z, P, P, Z, U]),
    "it_rows_linear_backward_params": (I, [Z, Z, Z, P, Z, P, Z, P, P, U]),
    "it_rows_embedding_forward": (I, [Z, Z, Z, P, P, P, Z, U]),
    "it_rows_embedding_backward": (I, [Z, Z, Z, P, P, Z, P, U]),
    "it_rows_add": (I, [Z, Z, P, Z, P, Z, P, Z, U]),
    "it_rows_relu_forward": (I, [Z, Z, P, Z, P, Z, U]),
    "it_rows_relu_backward": (I, [Z, Z, P, Z, P, Z, P, Z, U]),
    "it_rows_tanh_forward": (I, [Z, Z, P, Z, P, Z, U]),
    "it_rows_tanh_backward": (I, [Z, Z, P, Z, P, Z, P, Z, U]),
    "it_rows_softmax_xent_forward": (I, [Z, Z, P, Z, P, P, P, Z, U]),
    "it_rows_softmax_xent_backward": (I, [Z, Z, P, Z, P, F, P, Z, U]),
    "it_rows_attention_forward": (I, [Z, Z, Z, Z, F, P, Z, P, P, Z, P, P, Z, U]),
    "it_rows_attention_backward": (I, [Z, Z, Z, Z, F, P, Z, P, P, Z, P, P, Z, P, Z, P, P, Z, U]),
    "it_tensor_adamw_update": (I, [ctypes.POINTER(AdamWConsts), F, F, P, P, P, P, Z, U]),
    "it_tensor_sgd_update": (I, [P, P, Z, F, U]),
    # spec 1.2.0: the gptchar ops (isotrain.h §5.13-§5.20, §7.3, §7.4)
    "it_residual_add": (None, [P, P, Z, P]),
    "it_layernorm_forward": (None, [P, P, P, Z, F, P, P, P, P]),
    "it_layernorm_backward": (None, [P, F, P, P, Z, P, P, P]),
    "it_gelu_forward": (None, [P, Z, P]),
    "it_gelu_backward": (None, [P, P, Z, P]),
    "it_causal_attention_forward_scratch": (None, [P, P, P, Z, Z, Z, F, P, P, P]),
    "it_causal_attention_backward_scratch": (None, [P, P, P, P, P, Z, Z, Z, F, P, P, P, P, P, P]),
    "it_clip_grad_norm": (F, [P, Z, F, F]),
    "it_lr_schedule": (F, [U32, U32, U32, F]),
    # _rows.c, linked into the same .so: row/sequence loops over the one-row entry points
    "itt_rows_layernorm_forward": (None, [Z, Z, P, P, P, F, P, P, P, P]),
    "itt_rows_layernorm_backward": (None, [Z, Z, P, P, P, P, P, P, P]),
    "itt_gelu_forward_keep": (None, [P, Z, P, P]),
    "itt_gelu_backward_kept": (None, [P, P, P, Z, P]),
    "itt_seqs_causal_attention_forward": (None, [Z, Z, Z, Z, F, P, P, P, P, P, P]),
    "itt_seqs_causal_attention_backward": (None, [Z, Z, Z, Z, F, P, P, P, P, P, P, P, P, P, P, P]),
    "itt_rng_below": (None, [U64, U32, U64, Z, U32, P]),
    "itt_indices_i64": (Z, [P, Z, ctypes.c_int64, P]),
    # _chain.c: a chain of row layers in one call each way (conform's fusion)
    "itt_chain_forward": (I, [Z, Z, P, P, P, P, P, P, P, P, U]),
    "itt_chain_backward": (I, [Z, Z, P, P, P, P, P, P, P, P, P, P, P, P, P, U]),
    # _tensors.c: AdamW over a group's tensors in one call; §7.3, §8.1 over a list of tensors
    "itt_adamw_tensors": (I, [ctypes.POINTER(AdamWConsts), F, F, Z, P, P, P, P, P, U]),
    "it_clip_grad_norm_tensors": (F, [Z, P, P, F, F]),
    "itt_store_f32le_tensors": (None, [Z, P, P, P]),
    "itt_layout": (I, [Z, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(Z),
                       ctypes.POINTER(Z)]),
}


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise LibraryError("isotrain.torch: %s does not exist; build it with `make torch-so` "
                           "(or set ISOTRAIN_LIB to a libisotrain.so)" % path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryError("isotrain.torch: cannot load %s: %s" % (path, e)) from None
    for name, (res, args) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise LibraryError("isotrain.torch: %s has no symbol %s (an older library? rebuild with "
                               "`make torch-so`)" % (path, name)) from None
        fn.restype = res
        fn.argtypes = args
    # ISOTRAIN_KERNELS names the kernel set as for the CLI; a name this CPU
    # cannot run is an error, never a silent fallback
    rc = lib.it_kernels_select_env()
    if rc != 0:
        why = "unknown to this build" if rc == -1 else "not runnable on this CPU"
        raise LibraryError("isotrain.torch: ISOTRAIN_KERNELS=%r is %s"
                           % (os.environ.get("ISOTRAIN_KERNELS"), why))
    return lib, path


lib, path = _load()


def _layout_table():
    """{C type: {field: (offset, size)}} as the library was compiled
    (_layout.c); the field "" is the struct's own size."""
    table, i = {}, 0
    t, f, off, size = ctypes.c_char_p(), ctypes.c_char_p(), Z(), Z()
    while lib.itt_layout(i, ctypes.byref(t), ctypes.byref(f), ctypes.byref(off), ctypes.byref(size)):
        table.setdefault(t.value.decode(), {})[f.value.decode()] = (off.value, size.value)
        i += 1
    return table


_LAYOUT = _layout_table()


def check_layout(mirrors, table=None):
    """Each ctypes mirror ({C type name: Structure}) against the layout the
    library was compiled with: a field the C side gained, lost or moved
    would have the library write past or beside the Python buffer, so any
    difference is a LibraryError naming the struct and field."""
    table = _LAYOUT if table is None else table

    def where(v):
        return "absent" if v is None else "offset %d, %d bytes" % v

    for cname, cls in mirrors.items():
        want = table.get(cname)
        if want is None:
            raise LibraryError("isotrain.torch: %s does not describe struct %s (an older library? rebuild with "
                               "`make torch-so`)" % (path, cname))
        have = {name: (getattr(cls, name).offset, getattr(cls, name).size) for name, *_ in cls._fields_}
        have[""] = (0, ctypes.sizeof(cls))
        # the fields in the C order, then any the C side lacks, then the size
        for field in [f for f in want if f] + [f for f in have if f and f not in want] + [""]:
            if want.get(field) != have.get(field):
                raise LibraryError("isotrain.torch: %s%s: the library %s has it at %s, this package's ctypes "
                                   "mirror (%s) at %s: the binding and the library disagree (rebuild with `make "
                                   "torch-so`, or mend the mirror)"
                                   % (cname, "." + field if field else " (its size)", path, where(want.get(field)),
                                      cls.__name__, where(have.get(field))))


check_layout({"it_fpenv_report": FpenvReport, "it_adamw_consts": AdamWConsts, "it_adamw_clock": AdamWClock})


def kernels():
    """The kernel set in use (portable, sse2, avx, avx2, avx512, neon)."""
    return lib.it_kernels_name().decode()


def host_isa():
    return lib.it_host_isa().decode()


def host_facts():
    """The machine as the library sees it (isotrain.h "host description",
    what `isotrain info` prints): under qemu-user the emulated CPU, not the
    machine running the emulator."""
    model, features = ctypes.create_string_buffer(256), ctypes.create_string_buffer(1024)
    lib.it_host_cpu_model(model, len(model))
    lib.it_host_cpu_features(features, len(features))
    return {"isa": host_isa(), "os": lib.it_host_os().decode(), "endianness": lib.it_host_endianness().decode(),
            "cpu_model": model.value.decode(errors="replace"), "cpu_features": features.value.decode(errors="replace")}


def fpenv_ok():
    """Spec §2.2 probe in this thread: None when subnormals are kept and
    rounding is to nearest even, else a short reason."""
    r = FpenvReport()
    if lib.it_fpenv_probe(ctypes.byref(r)) == 0:
        return None
    return ", ".join(w for w, on in (("FTZ", r.ftz), ("DAZ", r.daz), ("rounding mode", r.rounding)) if on)
