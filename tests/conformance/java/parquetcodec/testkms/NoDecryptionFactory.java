package parquetcodec.testkms;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.crypto.DecryptionPropertiesFactory;
import org.apache.parquet.crypto.FileDecryptionProperties;

/**
 * A crypto factory that gives no decryption properties: set per read
 * ({@code parquet.crypto.factory.class}) it makes parquet-java read a file as a
 * reader without any keys does, even in a session whose default factory has keys.
 */
public final class NoDecryptionFactory implements DecryptionPropertiesFactory {
  @Override
  public FileDecryptionProperties getFileDecryptionProperties(Configuration hadoopConfig, Path filePath) {
    return null;
  }
}
