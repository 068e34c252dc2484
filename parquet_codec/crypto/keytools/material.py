"""Key material "PKMT1" (parquet-java's KeyMaterial / KeyMetadata, which Arrow C++
and pyarrow write and read too).

Key metadata stored in the file is JSON. With internal storage it is the key
material itself plus ``"internalStorage": true``; with external storage it is
only ``{"keyMaterialType": "PKMT1", "internalStorage": false, "keyReference": ...}``
and the material lives in a sidecar file (see :mod:`.store`). Writers order
the fields differently, so everything is parsed as JSON, never by position.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from parquet_codec.errors import DecryptionError

KEY_MATERIAL_TYPE = "PKMT1"
FOOTER_KEY_ID_IN_FILE = "footerKey"
COLUMN_KEY_ID_IN_FILE_PREFIX = "columnKey"


@dataclass
class KeyMaterial:
    """How one data key is wrapped: by the KMS directly, or by a KEK the KMS wraps."""

    is_footer_key: bool
    master_key_id: str
    wrapped_dek: str
    double_wrapping: bool
    kek_id: str | None = None  # base64 of the 16-byte KEK id
    wrapped_kek: str | None = None
    kms_instance_id: str | None = None  # footer key only
    kms_instance_url: str | None = None

    def to_dict(self) -> dict[str, object]:
        fields: dict[str, object] = {"keyMaterialType": KEY_MATERIAL_TYPE, "isFooterKey": self.is_footer_key}
        if self.is_footer_key:
            fields["kmsInstanceID"] = self.kms_instance_id
            fields["kmsInstanceURL"] = self.kms_instance_url
        fields["masterKeyID"] = self.master_key_id
        fields["wrappedDEK"] = self.wrapped_dek
        fields["doubleWrapping"] = self.double_wrapping
        if self.double_wrapping:
            fields["keyEncryptionKeyID"] = self.kek_id
            fields["wrappedKEK"] = self.wrapped_kek
        return fields

    def serialize(self, internal_storage: bool | None) -> str:
        """JSON text; ``internal_storage`` adds the internalStorage flag (key metadata form)."""
        fields = self.to_dict()
        if internal_storage is not None:
            fields = {"keyMaterialType": KEY_MATERIAL_TYPE, "internalStorage": internal_storage,
                      **{k: v for k, v in fields.items() if k != "keyMaterialType"}}
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def parse(cls, fields: dict[str, object]) -> KeyMaterial:
        _check_type(fields)
        try:
            double = _bool(fields, "doubleWrapping")
            return cls(
                is_footer_key=_bool(fields, "isFooterKey"),
                master_key_id=_str(fields, "masterKeyID"),
                wrapped_dek=_str(fields, "wrappedDEK"),
                double_wrapping=double,
                kek_id=_str(fields, "keyEncryptionKeyID") if double else None,
                wrapped_kek=_str(fields, "wrappedKEK") if double else None,
                kms_instance_id=fields.get("kmsInstanceID"),  # type: ignore[arg-type]
                kms_instance_url=fields.get("kmsInstanceURL"),  # type: ignore[arg-type]
            )
        except KeyError as exc:
            raise DecryptionError(f"key material lacks the field {exc.args[0]!r}") from None


@dataclass
class KeyMetadata:
    """The key_metadata of a footer or column: material inline, or a reference to a sidecar."""

    internal_storage: bool
    material: KeyMaterial | None = None
    key_reference: str | None = None

    @classmethod
    def parse(cls, key_metadata: bytes | str) -> KeyMetadata:
        fields = parse_json(key_metadata, "key metadata")
        _check_type(fields)
        internal = fields.get("internalStorage", True)
        if not isinstance(internal, bool):
            raise DecryptionError("key metadata field 'internalStorage' is not a boolean")
        if internal:
            return cls(True, material=KeyMaterial.parse(fields))
        reference = fields.get("keyReference")
        if not isinstance(reference, str):
            raise DecryptionError("key metadata with external storage has no 'keyReference'")
        return cls(False, key_reference=reference)

    @staticmethod
    def external(key_reference: str) -> bytes:
        return json.dumps({"keyMaterialType": KEY_MATERIAL_TYPE, "internalStorage": False,
                           "keyReference": key_reference}, separators=(",", ":")).encode("utf-8")


def parse_json(text: bytes | str, what: str) -> dict[str, object]:
    try:
        fields = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise DecryptionError(f"{what} is not JSON key material (not written by parquet key tools?)") from None
    if not isinstance(fields, dict):
        raise DecryptionError(f"{what} is JSON but not an object")
    return fields


def _check_type(fields: dict[str, object]) -> None:
    kind = fields.get("keyMaterialType")
    if kind != KEY_MATERIAL_TYPE:
        raise DecryptionError(f"key material type {kind!r} is not supported (expected {KEY_MATERIAL_TYPE!r})")


def _bool(fields: dict[str, object], name: str) -> bool:
    value = fields[name]
    if not isinstance(value, bool):
        raise DecryptionError(f"key material field {name!r} is not a boolean")
    return value


def _str(fields: dict[str, object], name: str) -> str:
    value = fields[name]
    if not isinstance(value, str):
        raise DecryptionError(f"key material field {name!r} is not a string")
    return value


__all__ = ["COLUMN_KEY_ID_IN_FILE_PREFIX", "FOOTER_KEY_ID_IN_FILE", "KEY_MATERIAL_TYPE", "KeyMaterial",
           "KeyMetadata", "parse_json"]
