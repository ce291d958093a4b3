import {
  getNamedType, isInterfaceType, isObjectType, isUnionType, Kind,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLInterfaceType, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { isConnection, isEntity } from '../../../../rest-adapter/translate.ts';
import { AccessErrors } from '../../../domain/access/access.errors.ts';
import type { EdgeStep } from '../runner.ts';
import { rootFields } from './graphql-document.ts';

type Parent = GraphQLObjectType | GraphQLInterfaceType;

/** The first field below `selection` that names a related object (an entity or a connection) REST does not show, as `Type.field`. */
function relatedField(schema: GraphQLSchema, document: DocumentNode, parent: Parent, selection: SelectionSetNode, spread: Set<string>): string | null {
  for (const s of selection.selections) {
    if (s.kind === Kind.FIELD) {
      const field = s.name.value.startsWith('__') ? undefined : parent.getFields()[s.name.value];
      if (!field) continue; // GraphQL's validation answers an unknown field
      const named = getNamedType(field.type);
      if (!isObjectType(named) && !isInterfaceType(named) && !isUnionType(named)) continue; // a scalar or an enum
      // REST shows value objects; an entity, a connection, or what may be one (an interface, a union), it leaves out.
      if (field.extensions?.restEmbed !== true && (!isObjectType(named) || isEntity(named) || isConnection(named))) return `${parent.name}.${field.name}`;
      const below = s.selectionSet && (isObjectType(named) || isInterfaceType(named)) ? relatedField(schema, document, named, s.selectionSet, spread) : null;
      if (below) return below;
      continue;
    }
    let typeName: string | undefined;
    let inner: SelectionSetNode | undefined;
    if (s.kind === Kind.INLINE_FRAGMENT) {
      typeName = s.typeCondition?.name.value ?? parent.name;
      inner = s.selectionSet;
    } else if (!spread.has(s.name.value)) {
      spread.add(s.name.value);
      const fragment = document.definitions.find((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      typeName = fragment?.typeCondition.name.value;
      inner = fragment?.selectionSet;
    }
    const type = typeName ? schema.getType(typeName) : undefined;
    const found = inner && type && (isObjectType(type) || isInterfaceType(type)) ? relatedField(schema, document, type, inner, spread) : null;
    if (found) return found;
  }
  return null;
}

/**
 * The browser booking's caller (a publishable key with a booking's client_secret) reads over
 * GraphQL what REST answers it: the booking, or the checkout, itself. The objects related to
 * them (the customer, the payment, charges, transactions, another booking...) are shown to no
 * such caller over REST (an answer shows scalars and value objects, rest-adapter/translate.ts),
 * so selecting one over GraphQL is refused the same way an operation outside its reach is:
 * 403 secret_key_required, naming the field. A client_secret lives in a customer's browser for
 * as long as the booking does; it must not reach, over one transport, what the other withholds.
 */
export function browserSelectionStep(schema: GraphQLSchema): EdgeStep {
  return {
    name: 'browser-selection',
    run(ctx) {
      const graphql = ctx.graphql;
      if (ctx.principal?.booking === undefined || ctx.kind !== 'graphql' || !graphql?.document || !graphql.operation) return;
      const root = schema.getRootType(graphql.operation.operation);
      if (!root) return;
      const spread = new Set<string>();
      for (const field of rootFields(graphql.document, graphql.operation.selectionSet).values()) {
        const def = root.getFields()[field.name.value];
        const named = def ? getNamedType(def.type) : undefined;
        if (!field.selectionSet || !named || !(isObjectType(named) || isInterfaceType(named))) continue;
        const related = relatedField(schema, graphql.document, named, field.selectionSet, spread);
        if (related) throw AccessErrors.secretKeyRequired(related);
      }
    },
  };
}
