ANSWERS = {"step 1.1 of \"What science fantasy young adult series, told in first person, has a set of companion books narrating the stories of enslaved worlds and alien species?\"":"fact-09b8be","step 2.1 of \"What science fantasy young adult series, told in first person, has a set of companion books narrating the stories of enslaved worlds and alien species?\"":"fact-ffbb13"}

def find_entity_0524bca4c1ef(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
