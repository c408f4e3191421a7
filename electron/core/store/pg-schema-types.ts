// The migrations are written once for both dialects. SQLite's integer is 64-bit; PostgreSQL's is
// 32-bit, too small for unix milliseconds and nano-USD, so every integer column becomes bigint
// there, and an autoincrement key a bigserial (PostgreSQL has no AUTOINCREMENT).
import { ColumnDefinitionNode, DataTypeNode, OperationNodeTransformer, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';

class BigintColumns extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const column = super.transformColumnDefinition(node);
    if (!column.autoIncrement) return column;
    return Object.freeze({ ...column, autoIncrement: undefined, dataType: DataTypeNode.create('bigserial') });
  }

  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    return node.dataType === 'integer' ? DataTypeNode.create('bigint') : node;
  }
}

export class PostgresSchemaTypes implements KyselyPlugin {
  private readonly transformer = new BigintColumns();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
