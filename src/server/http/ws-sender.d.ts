// ws exports its Sender (`require('ws').Sender`, and from its ES module
// wrapper) and calls the static `Sender.frame` public, but @types/ws declares
// neither: this is the part of it the watch's WebSocket wire uses.
import 'ws';

declare module 'ws' {
  interface SenderFrameOptions {
    fin: boolean;
    opcode: number;
    mask: boolean;
    readOnly: boolean;
    rsv1: boolean;
  }
  class Sender {
    /** The frame's header and, unmasked, the data itself: written back to back they are one frame. */
    static frame(data: Buffer, options: SenderFrameOptions): Buffer[];
  }
}
