package parquetcodec.testkms;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.KmsClient;

/**
 * A test-only KMS holding its master keys in memory, for parquet-codec's Spark
 * conformance suite.
 *
 * <p>The master keys come from the Hadoop setting {@code parquet.encryption.key.list}
 * ("id:base64key, id:base64key"). A key is wrapped as
 * base64(nonce[12] | AES-GCM ciphertext | tag[16]) under the master key, with the
 * UTF-8 bytes of the master key id as additional authenticated data: the layout
 * parquet_codec.crypto.InMemoryKms reads and writes.
 */
public final class InMemoryKmsClient implements KmsClient {
  public static final String KEY_LIST_PROPERTY = "parquet.encryption.key.list";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, byte[]> masterKeys = new HashMap<>();

  @Override
  public void initialize(Configuration conf, String kmsInstanceID, String kmsInstanceURL, String accessToken) {
    String[] entries = conf.getTrimmedStrings(KEY_LIST_PROPERTY);
    if (entries.length == 0) {
      throw new ParquetCryptoRuntimeException("InMemoryKmsClient: no master keys, set " + KEY_LIST_PROPERTY);
    }
    masterKeys.clear();
    for (String entry : entries) {
      int colon = entry.indexOf(':');
      if (colon <= 0) {
        throw new ParquetCryptoRuntimeException("InMemoryKmsClient: key list entry is not id:base64 key");
      }
      String id = entry.substring(0, colon).trim();
      masterKeys.put(id, Base64.getDecoder().decode(entry.substring(colon + 1).trim()));
    }
  }

  @Override
  public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    byte[] sealed = run(Cipher.ENCRYPT_MODE, masterKeyIdentifier, nonce, keyBytes, 0, keyBytes.length);
    byte[] out = new byte[NONCE_BYTES + sealed.length];
    System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
    System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
    return Base64.getEncoder().encodeToString(out);
  }

  @Override
  public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
    byte[] raw = Base64.getDecoder().decode(wrappedKey);
    if (raw.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new ParquetCryptoRuntimeException("InMemoryKmsClient: wrapped key too short");
    }
    byte[] nonce = new byte[NONCE_BYTES];
    System.arraycopy(raw, 0, nonce, 0, NONCE_BYTES);
    return run(Cipher.DECRYPT_MODE, masterKeyIdentifier, nonce, raw, NONCE_BYTES, raw.length - NONCE_BYTES);
  }

  private byte[] run(int mode, String masterKeyId, byte[] nonce, byte[] input, int offset, int length) {
    byte[] master = masterKeys.get(masterKeyId);
    if (master == null) {
      throw new KeyAccessDeniedException("InMemoryKmsClient: unknown master key " + masterKeyId);
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(mode, new SecretKeySpec(master, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(masterKeyId.getBytes(StandardCharsets.UTF_8));
      return cipher.doFinal(input, offset, length);
    } catch (GeneralSecurityException e) {
      throw new ParquetCryptoRuntimeException("InMemoryKmsClient: AES-GCM failed for master key " + masterKeyId, e);
    }
  }
}
