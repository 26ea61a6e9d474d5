"""Reads a compiler index store through the toolchain's libIndexStore C API (ctypes only).

Only what the availability gate needs: for every unit of one module, the source file it was
compiled from, the modules it depends on, and every symbol occurrence (USR, roles, line, column).
"""

import ctypes
import os
from dataclasses import dataclass

ROLE_DECLARATION = 1 << 0
ROLE_DEFINITION = 1 << 1
ROLE_REFERENCE = 1 << 2
ROLE_IMPLICIT = 1 << 8

DEPENDENCY_UNIT = 1
DEPENDENCY_RECORD = 2


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _text(ref):
    return ctypes.string_at(ref.data, ref.length).decode("utf-8", "replace") if ref.data else ""


_P = ctypes.c_void_p
_SIGNATURES = [
    ("indexstore_store_create", _P, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    ("indexstore_store_dispose", None, [_P]),
    ("indexstore_error_get_description", ctypes.c_char_p, [_P]),
    ("indexstore_store_units_apply_f", ctypes.c_bool, [_P, ctypes.c_uint, _P, _P]),
    ("indexstore_unit_reader_create", _P, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    ("indexstore_unit_reader_dispose", None, [_P]),
    ("indexstore_unit_reader_get_main_file", _StringRef, [_P]),
    ("indexstore_unit_reader_get_module_name", _StringRef, [_P]),
    ("indexstore_unit_reader_dependencies_apply_f", ctypes.c_bool, [_P, _P, _P]),
    ("indexstore_unit_dependency_get_kind", ctypes.c_int, [_P]),
    ("indexstore_unit_dependency_get_name", _StringRef, [_P]),
    ("indexstore_unit_dependency_get_filepath", _StringRef, [_P]),
    ("indexstore_record_reader_create", _P, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    ("indexstore_record_reader_dispose", None, [_P]),
    ("indexstore_record_reader_occurrences_apply_f", ctypes.c_bool, [_P, _P, _P]),
    ("indexstore_occurrence_get_symbol", _P, [_P]),
    ("indexstore_occurrence_get_roles", ctypes.c_uint64, [_P]),
    ("indexstore_occurrence_get_line_col", None, [_P, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]),
    ("indexstore_symbol_get_usr", _StringRef, [_P]),
    ("indexstore_symbol_get_name", _StringRef, [_P]),
]
_NAME_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_bool, _P, _StringRef)
_POINTER_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_bool, _P, _P)


@dataclass(frozen=True)
class Occurrence:
    usr: str
    name: str
    roles: int
    line: int
    column: int  # 1-based, in UTF-8 bytes


@dataclass
class Unit:
    main_file: str
    module_files: list  # paths of the .swiftmodule / .swiftinterface files this unit depends on
    occurrences: list


def _load(library_path):
    lib = ctypes.CDLL(library_path)
    for name, result, arguments in _SIGNATURES:
        function = getattr(lib, name)
        function.restype = result
        function.argtypes = arguments
    return lib


def read_units(store_path, module_name, library_path):
    """Every unit of `module_name` in the store, newest record per source file."""
    lib = _load(library_path)
    error = _P()
    store = lib.indexstore_store_create(store_path.encode(), ctypes.byref(error))
    if not store:
        raise RuntimeError("cannot open index store %s: %s" % (
            store_path, lib.indexstore_error_get_description(error).decode()))
    try:
        names = []
        lib.indexstore_store_units_apply_f(store, 1, None, _NAME_CALLBACK(lambda _, n: names.append(_text(n)) or True))
        units = {}
        for name in names:
            unit = _read_unit(lib, store, name, module_name)
            if unit is not None:
                units[unit.main_file] = unit
        return [units[path] for path in sorted(units)]
    finally:
        lib.indexstore_store_dispose(store)


def _read_unit(lib, store, unit_name, module_name):
    error = _P()
    reader = lib.indexstore_unit_reader_create(store, unit_name.encode(), ctypes.byref(error))
    if not reader:
        return None
    try:
        if _text(lib.indexstore_unit_reader_get_module_name(reader)) != module_name:
            return None
        main_file = _text(lib.indexstore_unit_reader_get_main_file(reader))
        records, module_files = [], []

        def dependency(_, item):
            kind = lib.indexstore_unit_dependency_get_kind(item)
            if kind == DEPENDENCY_RECORD:
                records.append(_text(lib.indexstore_unit_dependency_get_name(item)))
            elif kind == DEPENDENCY_UNIT:
                module_files.append(_text(lib.indexstore_unit_dependency_get_filepath(item)))
            return True

        lib.indexstore_unit_reader_dependencies_apply_f(reader, None, _POINTER_CALLBACK(dependency))
    finally:
        lib.indexstore_unit_reader_dispose(reader)
    occurrences = []
    for record in records:
        occurrences.extend(_read_record(lib, store, record))
    return Unit(os.path.realpath(main_file), module_files, occurrences)


def _read_record(lib, store, record_name):
    error = _P()
    reader = lib.indexstore_record_reader_create(store, record_name.encode(), ctypes.byref(error))
    if not reader:
        return []
    found = []
    line, column = ctypes.c_uint(), ctypes.c_uint()

    def occurrence(_, item):
        roles = lib.indexstore_occurrence_get_roles(item)
        if roles & (ROLE_DECLARATION | ROLE_DEFINITION):
            return True
        symbol = lib.indexstore_occurrence_get_symbol(item)
        lib.indexstore_occurrence_get_line_col(item, ctypes.byref(line), ctypes.byref(column))
        found.append(Occurrence(_text(lib.indexstore_symbol_get_usr(symbol)),
                                _text(lib.indexstore_symbol_get_name(symbol)), roles, line.value, column.value))
        return True

    try:
        lib.indexstore_record_reader_occurrences_apply_f(reader, None, _POINTER_CALLBACK(occurrence))
    finally:
        lib.indexstore_record_reader_dispose(reader)
    return found
