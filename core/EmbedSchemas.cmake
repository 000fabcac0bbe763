# Turns docs/formats/*.schema.json into a header of string constants, so that an installed relayout
# validates against the schemas it was built with and needs no path into the source tree.
# Run as: cmake -DSCHEMA_DIR=... -DOUT=... -DNAMES="sitemap;profile;plan" -P EmbedSchemas.cmake
set(text "// Generated from docs/formats/*.schema.json by core/EmbedSchemas.cmake: edit the schemas, not this.\n#pragma once\n\nnamespace relayout::schemas {\n")
foreach(name IN LISTS NAMES)
  file(READ "${SCHEMA_DIR}/${name}.schema.json" schema)
  string(FIND "${schema}" ")schema\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name}.schema.json holds the raw string delimiter )schema\"")
  endif()
  string(APPEND text "inline constexpr const char k_${name}[] = R\"schema(${schema})schema\";\n")
endforeach()
string(APPEND text "}  // namespace relayout::schemas\n")
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
