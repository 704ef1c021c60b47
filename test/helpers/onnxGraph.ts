/**
 * What the stand-in Supertonic graphs (tinySupertonic.ts, costlySupertonic.ts) are built with: one
 * graph's nodes and constants against its `CONTRACT` entry, serialised as an opset 13, IR 7 model.
 */
import onnxProto from 'onnx-proto';
import type { onnx as Onnx } from 'onnx-proto';
import { CONTRACT } from '../../common/voice/contract';
import type { GraphName, TensorSpec, TensorType } from '../../common/voice/contract';

// onnx-proto is CommonJS: Node's ESM loader sees only its default export (the `module.exports`
// object), even though its typings declare `onnx` as a named export.
const { onnx } = onnxProto;

export const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const ELEMENT_TYPE: Record<TensorType, Onnx.TensorProto.DataType> = { float32: FLOAT, int64: INT64 };

/** Collects one graph's nodes and constants; names intermediates `v0`, `v1`, … and constants `c0`, …. */
export class OnnxGraph {
  private readonly nodes: Onnx.INodeProto[] = [];
  private readonly constants: Onnx.ITensorProto[] = [];

  constructor(protected readonly graph: GraphName) {}

  output(name: string): string {
    return this.spec(CONTRACT[this.graph].outputs, name).name;
  }

  /** A float32 scalar constant, which broadcasts against any shape. */
  float(value: number): string {
    return this.constant({ dims: [], dataType: FLOAT, floatData: [value] });
  }

  /** A 1-D int64 constant: axes, shapes, permutations. */
  int64s(values: readonly number[]): string {
    return this.constant({ dims: [values.length], dataType: INT64, int64Data: [...values] });
  }

  /** Appends one node; its output is `output` when given (a graph output), else a fresh name. */
  op(opType: string, inputs: readonly string[], attributes: Record<string, number | number[]> = {}, output?: string): string {
    const name = output ?? `v${this.nodes.length}`;
    this.nodes.push({
      opType,
      name: `${opType}_${this.nodes.length}`,
      input: [...inputs],
      output: [name],
      attribute: Object.entries(attributes).map(([key, value]) =>
        Array.isArray(value)
          ? { name: key, type: onnx.AttributeProto.AttributeType.INTS, ints: value }
          : { name: key, type: onnx.AttributeProto.AttributeType.INT, i: value },
      ),
    });
    return name;
  }

  /**
   * The serialised model by `producerName`: the nodes, the constants and then `weights` as its
   * initializers, each contract input named by `inputName` (default its contract name).
   */
  protected model(producerName: string, weights: readonly Onnx.ITensorProto[] = [], inputName = (spec: TensorSpec) => spec.name): Uint8Array {
    const contract = CONTRACT[this.graph];
    const model: Onnx.IModelProto = {
      irVersion: 7,
      opsetImport: [{ domain: '', version: 13 }],
      producerName,
      graph: {
        name: this.graph,
        node: this.nodes,
        initializer: [...this.constants, ...weights],
        input: contract.inputs.map((spec) => valueInfo(spec, inputName(spec))),
        output: contract.outputs.map((spec) => valueInfo(spec, spec.name)),
      },
    };
    return onnx.ModelProto.encode(model).finish();
  }

  protected spec(specs: readonly TensorSpec[], name: string): TensorSpec {
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) throw new Error(`The contract's ${this.graph} has no tensor "${name}"; the stand-in is out of date.`);
    return spec;
  }

  private constant(tensor: Onnx.ITensorProto): string {
    const name = `c${this.constants.length}`;
    this.constants.push({ ...tensor, name });
    return name;
  }
}

function valueInfo(spec: TensorSpec, name: string): Onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEMENT_TYPE[spec.type],
        shape: { dim: spec.dims.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) },
      },
    },
  };
}
