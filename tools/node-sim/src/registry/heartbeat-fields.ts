import {
  decodeBool,
  decodeInt,
  decodeNumberText,
  decodeString,
  decodeStringArray,
  forEachField,
  GoJsonError,
  JsonNumber,
  parseJsonKeepingNumbers,
} from '../go/go-json';

/** A runner's GPU as Node stores it (the bare-index form becomes `{ id }`). */
export interface GpuFields {
  id: string;
  name: string;
  vramMb: number;
}

/** The USD quote of a heartbeat, with `price` as Go `json.Number` text (`''` when absent). */
export interface PriceQuoteFields {
  price: string;
  currency: string;
  unit: string;
}

/** Node's `heartbeatRequest` after Go's JSON decode: zero values for anything absent. */
export interface HeartbeatFields {
  runnerId: string;
  label: string;
  runnerUrl: string;
  version: string;
  metadata: string;
  gpu: GpuFields | undefined;
  status: string;
  mode: string;
  proxy: boolean;
  app: string;
  capacity: number;
  priceInfo: PriceQuoteFields;
  sessionIds: string[];
}

const REQUEST_FIELDS = [
  'runner_id',
  'label',
  'runner_url',
  'version',
  'metadata',
  'gpu',
  'status',
  'mode',
  'proxy',
  'app',
  'capacity',
  'price_info',
  'session_ids',
] as const;

function decodeGpu(value: unknown): GpuFields | undefined {
  if (value === null) return undefined;
  if (value instanceof JsonNumber) {
    // Node's UnmarshalJSON tries an int first; a negative index is an error, not an object.
    const index = decodeInt(value, 0);
    if (index < 0) throw new GoJsonError('GPU index must be nonnegative');
    return { id: String(index), name: '', vramMb: 0 };
  }
  const gpu: GpuFields = { id: '', name: '', vramMb: 0 };
  forEachField(value, ['id', 'name', 'vram_mb'], (field, fieldValue) => {
    if (field === 'id') gpu.id = decodeString(fieldValue, gpu.id);
    else if (field === 'name') gpu.name = decodeString(fieldValue, gpu.name);
    else gpu.vramMb = decodeInt(fieldValue, gpu.vramMb);
  });
  if (gpu.vramMb < 0) throw new GoJsonError('GPU VRAM must be nonnegative');
  return gpu;
}

function decodePrice(value: unknown, current: PriceQuoteFields): PriceQuoteFields {
  const quote = { ...current };
  forEachField(value, ['price', 'price_usd', 'currency', 'unit'], (field, fieldValue) => {
    if (field === 'price') quote.price = decodeNumberText(fieldValue, quote.price);
    else if (field === 'price_usd') decodeNumberText(fieldValue, '');
    else if (field === 'currency') quote.currency = decodeString(fieldValue, quote.currency);
    else quote.unit = decodeString(fieldValue, quote.unit);
  });
  return quote;
}

function emptyFields(): HeartbeatFields {
  return {
    runnerId: '',
    label: '',
    runnerUrl: '',
    version: '',
    metadata: '',
    gpu: undefined,
    status: '',
    mode: '',
    proxy: false,
    app: '',
    capacity: 0,
    priceInfo: { price: '', currency: '', unit: '' },
    sessionIds: [],
  };
}

function applyField(fields: HeartbeatFields, field: (typeof REQUEST_FIELDS)[number], value: unknown): void {
  switch (field) {
    case 'runner_id':
      return void (fields.runnerId = decodeString(value, fields.runnerId));
    case 'label':
      return void (fields.label = decodeString(value, fields.label));
    case 'runner_url':
      return void (fields.runnerUrl = decodeString(value, fields.runnerUrl));
    case 'version':
      return void (fields.version = decodeString(value, fields.version));
    case 'metadata':
      return void (fields.metadata = decodeString(value, fields.metadata));
    case 'gpu':
      return void (fields.gpu = decodeGpu(value));
    case 'status':
      return void (fields.status = decodeString(value, fields.status));
    case 'mode':
      return void (fields.mode = decodeString(value, fields.mode));
    case 'proxy':
      return void (fields.proxy = decodeBool(value, fields.proxy));
    case 'app':
      return void (fields.app = decodeString(value, fields.app));
    case 'capacity':
      return void (fields.capacity = decodeInt(value, fields.capacity));
    case 'price_info':
      return void (fields.priceInfo = decodePrice(value, fields.priceInfo));
    case 'session_ids':
      return void (fields.sessionIds = decodeStringArray(value));
  }
}

/**
 * Decodes a heartbeat body exactly as Node's Go decoder would fill `heartbeatRequest`. Throws
 * {@link GoJsonError} where Node answers 400 `invalid heartbeat JSON`.
 */
export function decodeHeartbeat(text: string): HeartbeatFields {
  const parsed = parseJsonKeepingNumbers(text);
  const fields = emptyFields();
  forEachField(parsed, REQUEST_FIELDS, (field, value) =>
    applyField(fields, field as (typeof REQUEST_FIELDS)[number], value),
  );
  return fields;
}
