const HEX = '0123456789ABCDEF';

/**
 * The `grpc-message` trailer as the gRPC spec (PROTOCOL-HTTP2.md) says: the message's UTF-8 bytes,
 * percent-encoding only those outside 0x20–0x7E and `%` itself, so clients show `a; b: c`, not
 * `a%3B%20b%3A%20c`. Ill-formed UTF-16 is replaced first (U+FFFD) so encoding never throws.
 */
export function encodeGrpcMessage(message: string): string {
  const bytes = Buffer.from(message.toWellFormed(), 'utf8');
  let out = '';
  for (const byte of bytes) {
    out +=
      byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${HEX[byte >> 4]}${HEX[byte & 15]}` : String.fromCharCode(byte);
  }
  return out;
}

/**
 * Prefixes a message with the gRPC frame header: flag 0 (not compressed), 4-byte big-endian length.
 * A Buffer, which a stream writes as it is (a plain Uint8Array is wrapped in a new Buffer at every
 * write, which a fan-out repeats for each of thousands of streams).
 */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafeSlow(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}
