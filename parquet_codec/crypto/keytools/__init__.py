"""Key tools: KMS clients, PKMT1 key material and the CryptoFactory, interoperable with
parquet-java's PropertiesDrivenCryptoFactory and pyarrow.parquet.encryption."""

from parquet_codec.crypto.keytools.factory import (
    CryptoFactory,
    DecryptionConfiguration,
    EncryptionConfiguration,
    parse_column_keys,
)
from parquet_codec.crypto.keytools.kms import (
    InMemoryKms,
    KmsClient,
    KmsConnectionConfig,
    unwrap_key_locally,
    wrap_key_locally,
)
from parquet_codec.crypto.keytools.material import KeyMaterial, KeyMetadata
from parquet_codec.crypto.keytools.store import KeyMaterialStore, sidecar_path

__all__ = [
    "CryptoFactory",
    "DecryptionConfiguration",
    "EncryptionConfiguration",
    "InMemoryKms",
    "KeyMaterial",
    "KeyMaterialStore",
    "KeyMetadata",
    "KmsClient",
    "KmsConnectionConfig",
    "parse_column_keys",
    "sidecar_path",
    "unwrap_key_locally",
    "wrap_key_locally",
]
