# `cmake --install` puts the public headers, the libraries and a CMake package under the prefix,
# so that another project does find_package(capsweep 0.6 CONFIG REQUIRED) and links
# capsweep::world, capsweep::io, capsweep::client, capsweep::c or capsweep::c_io. Each component has its own
# export set, and capsweep-config.cmake looks for a component's dependencies only when that
# component is asked for (or, with no COMPONENTS, when they can be found).
include(CMakePackageConfigHelpers)
set(CAPSWEEP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/capsweep)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/capsweep DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/capsweep/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/capsweep
        COMPONENT development)

set(components world)
install(TARGETS capsweep_world EXPORT capsweep-world ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET capsweep_io)
  list(APPEND components io c c_io)
  install(TARGETS capsweep_io EXPORT capsweep-io ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(TARGETS capsweep_c EXPORT capsweep-c LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          NAMELINK_COMPONENT development)
  install(TARGETS capsweep_c_io EXPORT capsweep-c_io LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          NAMELINK_COMPONENT development)
endif()
if(TARGET capsweep_client)
  list(APPEND components client)
  install(TARGETS capsweep_client EXPORT capsweep-client ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
foreach(component IN LISTS components)
  install(EXPORT capsweep-${component} NAMESPACE capsweep:: FILE capsweep-${component}-targets.cmake
          DESTINATION ${CAPSWEEP_CMAKE_DIR} COMPONENT development)
endforeach()
if(TARGET capsweep)
  install(TARGETS capsweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The service's protocol, so that clients in other languages generate their stubs from the
# version they talk to (protoc, grpc_tools): whether or not this build has the service.
install(FILES ${PROJECT_SOURCE_DIR}/service/capsweep.proto DESTINATION ${CMAKE_INSTALL_DATADIR}/capsweep
        COMPONENT development)

set(CAPSWEEP_COMPONENTS ${components})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/capsweep-config.cmake.in
                              ${PROJECT_BINARY_DIR}/capsweep-config.cmake INSTALL_DESTINATION ${CAPSWEEP_CMAKE_DIR})
# 0.x releases promise nothing across minor versions: 0.2 accepts 0.2.y only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/capsweep-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/capsweep-config.cmake ${PROJECT_BINARY_DIR}/capsweep-config-version.cmake
        DESTINATION ${CAPSWEEP_CMAKE_DIR} COMPONENT development)
