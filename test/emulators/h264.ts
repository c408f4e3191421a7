// A tiny H.264 (Baseline, CAVLC) encoder for the emulators' video downloads: every frame is
// decodable, so players and ffprobe accept the file, at almost no CPU cost.
//  - IDR frames: every macroblock is Intra_16x16 with DC prediction and one luma DC
//    coefficient (or none), so the picture is flat blocks of a few grey levels;
//  - P frames: the whole slice is one skip run (the picture of the previous frame stays);
//  - each access unit may carry an SEI user_data_unregistered payload (ignored by decoders,
//    allowed in every AU) so the file has the size a real encoder's output of that bitrate has.
// Spec followed: ITU-T H.264 (7.3 syntax, 9.1 Exp-Golomb, 9.2 CAVLC coeff_token for nC 0..1).

class BitWriter {
  private bytes: number[] = [];
  private current = 0;
  private count = 0;

  bit(value: number): void {
    this.current = (this.current << 1) | (value & 1);
    if (++this.count === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.count = 0;
    }
  }

  bits(value: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) this.bit((value >>> i) & 1);
  }

  /** ue(v): Exp-Golomb, unsigned. */
  ue(value: number): void {
    const coded = value + 1;
    const width = 32 - Math.clz32(coded);
    this.bits(0, width - 1);
    this.bits(coded, width);
  }

  /** se(v): Exp-Golomb, signed (k > 0 -> 2k-1, k <= 0 -> -2k). */
  se(value: number): void {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** rbsp_trailing_bits: a stop bit, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.bit(1);
    while (this.count !== 0) this.bit(0);
    return Buffer.from(this.bytes);
  }
}

/** RBSP -> NAL payload: 0x03 after two zero bytes before any byte <= 3 (7.4.1). */
function escape(rbsp: Buffer): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

function nal(refIdc: number, type: number, rbsp: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(refIdc << 5) | type]), escape(rbsp)]);
}

const PROFILE_BASELINE = 66;
const CONSTRAINTS = 0xc0; // constraint_set0 and set1: decodable by Baseline and Main decoders
const LOG2_MAX_FRAME_NUM = 16;

export interface H264Stream {
  sps: Buffer;
  pps: Buffer;
  profile: number;
  constraints: number;
  level: number;
  /** One entry per frame: its NAL units (without start codes or length prefixes). */
  frames: { nals: Buffer[]; key: boolean }[];
}

function levelFor(widthMbs: number, heightMbs: number, fps: number): number {
  const frameMbs = widthMbs * heightMbs;
  const mbps = frameMbs * fps;
  // [level_idc, MaxFS, MaxMBPS] of Table A-1.
  const table: [number, number, number][] = [
    [30, 1620, 40500],
    [31, 3600, 108000],
    [32, 5120, 216000],
    [40, 8192, 245760],
    [42, 8704, 522240],
    [50, 22080, 589824],
    [51, 36864, 983040],
  ];
  return (table.find(([, fs, rate]) => frameMbs <= fs && mbps <= rate) ?? [51])[0];
}

function spsRbsp(width: number, height: number, level: number): Buffer {
  const widthMbs = Math.ceil(width / 16);
  const heightMbs = Math.ceil(height / 16);
  const w = new BitWriter();
  w.bits(PROFILE_BASELINE, 8);
  w.bits(CONSTRAINTS, 8);
  w.bits(level, 8);
  w.ue(0); // seq_parameter_set_id
  w.ue(LOG2_MAX_FRAME_NUM - 4);
  w.ue(2); // pic_order_cnt_type 2: output order = decoding order, no POC in slices
  w.ue(1); // max_num_ref_frames
  w.bit(0); // gaps_in_frame_num_value_allowed_flag
  w.ue(widthMbs - 1);
  w.ue(heightMbs - 1);
  w.bit(1); // frame_mbs_only_flag
  w.bit(1); // direct_8x8_inference_flag
  const cropRight = (widthMbs * 16 - width) / 2; // 4:2:0 crop units are 2 pixels
  const cropBottom = (heightMbs * 16 - height) / 2;
  if (cropRight > 0 || cropBottom > 0) {
    w.bit(1);
    w.ue(0);
    w.ue(cropRight);
    w.ue(0);
    w.ue(cropBottom);
  } else {
    w.bit(0);
  }
  w.bit(0); // vui_parameters_present_flag
  return w.trailing();
}

function ppsRbsp(): Buffer {
  const w = new BitWriter();
  w.ue(0); // pic_parameter_set_id
  w.ue(0); // seq_parameter_set_id
  w.bit(0); // entropy_coding_mode_flag: CAVLC
  w.bit(0); // bottom_field_pic_order_in_frame_present_flag
  w.ue(0); // num_slice_groups_minus1
  w.ue(0); // num_ref_idx_l0_default_active_minus1
  w.ue(0); // num_ref_idx_l1_default_active_minus1
  w.bit(0); // weighted_pred_flag
  w.bits(0, 2); // weighted_bipred_idc
  w.se(0); // pic_init_qp_minus26
  w.se(0); // pic_init_qs_minus26
  w.se(0); // chroma_qp_index_offset
  w.bit(1); // deblocking_filter_control_present_flag
  w.bit(0); // constrained_intra_pred_flag
  w.bit(0); // redundant_pic_cnt_present_flag
  return w.trailing();
}

/**
 * An IDR slice of Intra_16x16 DC macroblocks. `shade(x, y)` is the luma DC level of a
 * macroblock: 0 (none coded) or +-1 (one trailing-one coefficient), which moves the block's
 * brightness from its prediction; the result is a soft pattern of grey blocks.
 */
function idrSlice(widthMbs: number, heightMbs: number, idrPicId: number, shade: (x: number, y: number) => number): Buffer {
  const w = new BitWriter();
  w.ue(0); // first_mb_in_slice
  w.ue(7); // slice_type: I (all slices of the picture)
  w.ue(0); // pic_parameter_set_id
  w.bits(0, LOG2_MAX_FRAME_NUM); // frame_num
  w.ue(idrPicId);
  w.bit(0); // no_output_of_prior_pics_flag
  w.bit(0); // long_term_reference_flag
  w.se(0); // slice_qp_delta
  w.ue(1); // disable_deblocking_filter_idc: off
  for (let y = 0; y < heightMbs; y++) {
    for (let x = 0; x < widthMbs; x++) {
      w.ue(3); // mb_type I_16x16_2_0_0: DC prediction, no chroma or luma AC coded
      w.ue(0); // intra_chroma_pred_mode: DC
      w.se(0); // mb_qp_delta
      // Intra16x16DCLevel, CAVLC with nC 0 (no AC coded anywhere, so every neighbour counts 0).
      const level = shade(x, y);
      if (level === 0) {
        w.bit(1); // coeff_token TotalCoeff 0
      } else {
        w.bits(0b01, 2); // coeff_token TotalCoeff 1, TrailingOnes 1
        w.bit(level < 0 ? 1 : 0); // trailing_ones_sign_flag
        w.bit(1); // total_zeros 0 (tzVlcIndex 1)
      }
    }
  }
  return w.trailing();
}

/** A P slice whose every macroblock is skipped (a copy of the reference frame). */
function skipSlice(widthMbs: number, heightMbs: number, frameNum: number): Buffer {
  const w = new BitWriter();
  w.ue(0); // first_mb_in_slice
  w.ue(5); // slice_type: P (all slices of the picture)
  w.ue(0); // pic_parameter_set_id
  w.bits(frameNum % (1 << LOG2_MAX_FRAME_NUM), LOG2_MAX_FRAME_NUM);
  w.bit(0); // num_ref_idx_active_override_flag
  w.bit(0); // ref_pic_list_modification_flag_l0
  w.bit(0); // adaptive_ref_pic_marking_mode_flag
  w.se(0); // slice_qp_delta
  w.ue(1); // disable_deblocking_filter_idc
  w.ue(widthMbs * heightMbs); // mb_skip_run: all of them
  return w.trailing();
}

// A fixed UUID for the padding SEI (user_data_unregistered needs one).
const PADDING_UUID = Buffer.from('6d67772d656d756c61746f722d706164', 'hex');

/** An SEI NAL unit with one user_data_unregistered payload of `size` bytes (>= 16). */
function paddingSei(size: number): Buffer {
  const payloadSize = Math.max(16, size);
  const head: number[] = [5]; // payloadType 5
  let rest = payloadSize;
  while (rest >= 255) {
    head.push(255);
    rest -= 255;
  }
  head.push(rest);
  const text = Buffer.alloc(payloadSize - 16);
  const filler = 'emulated video bytes; ';
  for (let i = 0; i < text.length; i++) text[i] = filler.charCodeAt(i % filler.length);
  return nal(0, 6, Buffer.concat([Buffer.from(head), PADDING_UUID, text, Buffer.from([0x80])]));
}

export interface H264Options {
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** A key frame every this many frames. */
  gop: number;
  /** Approximate bytes of every frame, padding included (0: no padding). */
  frameBytes: number;
}

export function encodeH264(options: H264Options): H264Stream {
  const widthMbs = Math.ceil(options.width / 16);
  const heightMbs = Math.ceil(options.height / 16);
  const level = levelFor(widthMbs, heightMbs, options.fps);
  const sps = nal(3, 7, spsRbsp(options.width, options.height, level));
  const pps = nal(3, 8, ppsRbsp());
  const frames: H264Stream['frames'] = [];
  let frameNum = 0;
  let idrCount = 0;
  const skip: Buffer[] = [];
  for (let i = 0; i < options.frames; i++) {
    let slice: Buffer;
    const key = i % options.gop === 0;
    if (key) {
      frameNum = 0;
      const phase = idrCount;
      // idr_pic_id alternates between consecutive IDRs (7.4.3); the pattern moves with each.
      slice = nal(3, 5, idrSlice(widthMbs, heightMbs, idrCount % 2, (x, y) => ((x + y + phase) % 7 === 0 ? 1 : (x * 3 + y) % 11 === 0 ? -1 : 0)));
      idrCount++;
    } else {
      frameNum++;
      skip[frameNum] ??= nal(2, 1, skipSlice(widthMbs, heightMbs, frameNum));
      slice = skip[frameNum]!;
    }
    const padding = options.frameBytes - slice.length - 4 - 8;
    const nals = padding > 32 ? [paddingSei(padding), slice] : [slice];
    frames.push({ nals, key });
  }
  return { sps, pps, profile: PROFILE_BASELINE, constraints: CONSTRAINTS, level, frames };
}
