/**
 * A request body as it arrives, held in memory that grows with it and is given back the moment
 * it is decoded or dropped (http-service.ts reads bodies into it).
 */
/** A resizable ArrayBuffer: ES2024, which Node 20 has and this project's TypeScript lib does not name yet. */
interface Resizable extends ArrayBuffer {
  resize(bytes: number): void;
}
const ResizableBuffer = ArrayBuffer as unknown as new (bytes: number, o: { maxByteLength: number }) => Resizable;

/**
 * A body as it arrives, in one resizable buffer that grows with it up to `max` bytes: memory
 * is taken only for what has come, and given back to the system the moment the body is
 * decoded or dropped (a shrink returns the pages at once, where a dropped buffer would wait
 * for a garbage collection that an idle server may not run for a long time).
 */
export class BodyBuffer {
  size = 0;
  dropped = false;
  private readonly bytes: Resizable;

  constructor(max: number) {
    this.bytes = new ResizableBuffer(0, { maxByteLength: max });
  }

  add(c: Buffer): void {
    this.bytes.resize(this.size + c.length);
    new Uint8Array(this.bytes, this.size, c.length).set(c);
    this.size += c.length;
  }

  /** The body as text; its bytes are given back. */
  text(): string {
    const text = Buffer.from(this.bytes, 0, this.size).toString('utf8');
    this.drop();
    return text;
  }

  drop(): void {
    this.dropped = true;
    this.bytes.resize(0);
  }
}
