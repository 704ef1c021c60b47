/**
 * A tiny stand-in for all-MiniLM-L6-v2's ONNX graph, so the sentence-model path (pinned files,
 * WordPiece, onnxruntime-web, pooling) is tested under Node without 90 MB of weights. It has the
 * real graph's input and output names, element types and dimensions — `input_ids`,
 * `attention_mask`, `token_type_ids` (int64 [batch, tokens]) → `last_hidden_state` (float32
 * [batch, tokens, 384]) — and computes something a test can predict: each token's state is row
 * `input_id` of a fixed table (`tokenState`). The mask and the token types flow into the output
 * through a term multiplied by zero, so each is consumed and a missing one fails as in the real
 * model. Opset 13, IR version 7.
 */
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';

// onnx-proto is CommonJS: Node's ESM loader sees only its default export.
const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

export const TINY_WIDTH = 384;

/** The tokens' vocabulary, one piece a line, as BERT's vocab.txt. */
export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'my', 'sister', 'is', 'called', 'ana', 'sib', '##ling', "'", 's', 'name', '?', 'cafe', '.'];

/** The state the stand-in gives token `id` in dimension `d`: small whole numbers, exact in float32. */
export function tokenState(id: number, d: number): number {
  return ((id * 7 + d * 3) % 11) - 5;
}

export interface TinyOptions {
  /** Rename one input, to offer the loader a graph that breaks the contract. */
  renameInput?: { from: string; to: string };
}

export function buildTinyMiniLm(options: TinyOptions = {}): Uint8Array {
  const name = (input: string) => (options.renameInput?.from === input ? options.renameInput.to : input);
  const table: number[] = [];
  for (let id = 0; id < TINY_VOCAB.length; id++) for (let d = 0; d < TINY_WIDTH; d++) table.push(tokenState(id, d));
  const initializer: Onnx.ITensorProto[] = [
    { name: 'table', dims: [TINY_VOCAB.length, TINY_WIDTH], dataType: FLOAT, floatData: table },
    { name: 'zero', dims: [], dataType: FLOAT, floatData: [0] },
    { name: 'last_axis', dims: [1], dataType: INT64, int64Data: [2] },
  ];
  const node = (opType: string, input: string[], output: string, attribute: Onnx.IAttributeProto[] = []): Onnx.INodeProto => ({
    opType,
    name: output,
    input,
    output: [output],
    attribute,
  });
  const toFloat = [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT }];
  const nodes = [
    node('Gather', ['table', name('input_ids')], 'states', [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
    node('Cast', [name('attention_mask')], 'mask_f', toFloat),
    node('Unsqueeze', ['mask_f', 'last_axis'], 'mask_u'),
    node('Mul', ['mask_u', 'zero'], 'mask_0'),
    node('Cast', [name('token_type_ids')], 'types_f', toFloat),
    node('Unsqueeze', ['types_f', 'last_axis'], 'types_u'),
    node('Mul', ['types_u', 'zero'], 'types_0'),
    node('Add', ['states', 'mask_0'], 'with_mask'),
    node('Add', ['with_mask', 'types_0'], 'last_hidden_state'),
  ];
  const tensor = (tensorName: string, elemType: number, dims: (number | string)[]): Onnx.IValueInfoProto => ({
    name: tensorName,
    type: { tensorType: { elemType, shape: { dim: dims.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) } } },
  });
  const model: Onnx.IModelProto = {
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'confab-tiny-minilm',
    graph: {
      name: 'tiny-minilm',
      node: nodes,
      initializer,
      input: ['input_ids', 'attention_mask', 'token_type_ids'].map((input) => tensor(name(input), INT64, ['batch', 'tokens'])),
      output: [tensor('last_hidden_state', FLOAT, ['batch', 'tokens', TINY_WIDTH])],
    },
  };
  return onnx.ModelProto.encode(model).finish();
}
